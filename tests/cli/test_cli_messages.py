"""Error messages that help (issue 18): values as the file wrote them and cut short, tables named not
dumped, the array-of-tables mistakes explained, one form per bad option value, absurd numbers refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import example, run_cli

PASSING = example("pass-dual-3090-wrx80.toml")


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "build.toml"
    path.write_text(text)
    return path


def _error(tmp_path: Path, text: str) -> str:
    result = run_cli("check", _file(tmp_path, text))
    assert result.code == 2 and len(result.err.splitlines()) == 1
    return result.err


def test_a_toml_boolean_is_echoed_as_true(tmp_path: Path) -> None:
    err = _error(tmp_path, PASSING.read_text().replace("ambient = 24", "ambient = true"))
    assert "got true" in err and "True" not in err


def test_thirty_gpu_tables_give_one_short_sentence(tmp_path: Path) -> None:
    head = PASSING.read_text().split("[[gpu]]")[0]
    err = _error(tmp_path, head + '[[gpu]]\npart = "nvidia-rtx-3090-fe"\n' * 30)
    assert "30 [[gpu]] tables; a build takes at most 16" in err and len(err) < 200


def test_a_single_bracket_gpu_table_is_explained(tmp_path: Path) -> None:
    err = _error(tmp_path, PASSING.read_text().replace("[[gpu]]", "[gpu]"))
    assert "write [[gpu]]" in err and "not [gpu]" in err


def test_psu_written_like_case_is_explained(tmp_path: Path) -> None:
    text = PASSING.read_text().replace('[[psu]]\npart = "corsair-ax1600i"\ncircuit = "study"\n', "")
    err = _error(tmp_path, 'psu = "corsair-ax1600i"\n' + text)
    assert 'write [[psu]] on its own line, then part = "corsair-ax1600i"' in err


def test_a_long_value_is_cut_to_a_readable_length(tmp_path: Path) -> None:
    err = _error(tmp_path, PASSING.read_text().replace('workload = "llm-finetune"', f'workload = "{"y" * 500}"'))
    assert "…" in err and len(err) < 300


def test_a_bad_option_value_is_reported_in_one_form() -> None:
    err = run_cli("recommend", "--workload", "llm-inference", "--params", "7", "--budget", "3x").err
    [line] = [line for line in err.splitlines() if "error:" in line]
    assert line.count("--budget") == 1 and "3x" in line


def test_a_budget_in_thousands_is_accepted() -> None:
    result = run_cli("recommend", "--workload", "llm-inference", "--params", "7", "--budget", "3k")
    assert result.code == 0 and "budget $3,000" in result.out


@pytest.mark.parametrize("option", [["--memory", "1e9"], ["--batch", "0"], ["--top", "0"],
                                    ["--context", "100000000"]])
def test_absurd_numeric_options_are_range_checked(option: list[str]) -> None:
    args = ["--params", "7"] if option[0] != "--memory" else []
    result = run_cli("recommend", "--workload", "llm-inference", *args, *option)
    assert result.code == 2 and ("between" in result.err or "at least" in result.err)


def test_force_color_gives_colour_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    from planner.cli.common import rich_stdout

    assert rich_stdout()


def _base_system(tmp_path: Path) -> Path:
    text = PASSING.read_text()
    return _file(tmp_path, text[:text.index("[[gpu]]")] + text[text.index("[extras]"):])


def test_a_build_without_gpus_is_checked_as_the_base_system(tmp_path: Path) -> None:
    result = run_cli("check", _base_system(tmp_path), "--format", "json")
    [report] = __import__("json").loads(result.out)
    assert result.code == 0 and report["verdict"] == "pass"
    assert report["summary"]["gpus"] == [] and report["summary"]["relative_perf"] is None
    assert report["summary"]["dc_budget"]["gpus_w"] == 0


def test_optimize_and_the_script_export_say_a_build_without_gpus_has_nothing_to_set(tmp_path: Path) -> None:
    base = _base_system(tmp_path)
    for argv in (["optimize", base], ["export", base, "--format", "nvidia-smi"]):
        result = run_cli(*argv)
        assert result.code == 2 and "has no GPUs" in result.err


@pytest.mark.parametrize(("old", "new"), [('part = "nvidia-rtx-3090-fe"', 'part = "{}"'),
                                          ('case = "fractal-meshify-2-xl"', 'case = "{}"'),
                                          ('outlet = "nema-5-15"', 'outlet = "{}"')])
def test_a_long_unknown_id_is_cut_in_the_message(tmp_path: Path, old: str, new: str) -> None:
    err = _error(tmp_path, PASSING.read_text().replace(old, new.format("z" * 400)))
    assert "z" * 79 + "…" in err and "z" * 81 not in err


def test_a_long_unknown_id_is_cut_on_the_command_line() -> None:
    err = run_cli("catalog", "show", "q" * 400).err
    assert "q" * 79 + "…" in err and len(err) < 300


def test_a_boolean_count_is_refused_not_read_as_one(tmp_path: Path) -> None:
    err = _error(tmp_path, PASSING.read_text().replace("count = 2", "count = true"))
    assert "gpu[0].count: expected a whole number, got true" in err
