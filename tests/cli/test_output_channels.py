"""Every output channel the planner writes, crossed with a table of hostile names (issue 26): one escaping rule
per channel, applied at the channel.

The names go where users put them — the build's name, inline GPU, case and motherboard names, a slot name of an
inline motherboard, a circuit name, the build file's own name, a user catalog's ids and chip names, an option's
value — and every output must parse as what it is (TOML through tomllib, SVG through xml.etree, CSV through csv,
JSON through json, shell through `bash -n`), show no raw control byte (C0 but newline and tab, DEL, C1, bidi,
U+2028/9), forge no line, and leave no live markup (Markdown links, images, HTML, emphasis; BBCode tags; a
spreadsheet formula).
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from planner.catalog import Catalog, builtin_dir
from planner.session import BuildSession

from conftest import Run, run_cli

HOSTILE = {
    "newline": "a\nforged = 1",
    "cr": "a\rforged",
    "esc-clear": "\x1b[2J",
    "osc-title": "\x1b]0;pwned\x07",
    "bel": "b\x07",
    "rlo": "\u202egnp.exe",
    "rlm-isolate": "a\u200f\u2067b\u2069\u061c",
    "line-sep": "a\u2028forged",
    "nel": "a\x85forged",
    "csi-c1": "\x9b31m",
    "formula": "=cmd|' /C calc'!A0",
    "bbcode": "[url]x[/url]",
    "html": "<img src=x onerror=alert(1)>",
    "shell": "$(touch pwned)",
    "percent": "%s%n",
    "md-link": "[x](javascript:alert(1))",
    "md-image": "![i](http://e/x.png)",
    "md-emphasis": "*em* _u_",
}
#: What must never come out raw: C0 controls but newline and tab, DEL, C1 controls, bidi, line/paragraph sep.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


class Output(NamedTuple):
    label: str
    text: str
    kind: str  # terminal, toml, svg, csv, json, sh, systemd, md, bbcode


def _q(text: str) -> str:
    return json.dumps(text)  # a TOML basic string: JSON's escapes are TOML's (\uXXXX, \n, \")


def _file_name(name: str) -> str:
    return f"build {name.replace('/', '_')}.toml"


def hostile_build(directory: Path, name: str, *, gpus: int = 2, outlet: str = "nema-5-15") -> Path:
    """A complete build with `name` in every name a build file holds."""
    text = f"""name = {_q(name)}
workload = "llm-train"
cpu = "amd-threadripper-pro-5975wx"

[case]
base = "fractal-meshify-2-xl"
name = {_q("case " + name)}

[motherboard]
base = "asus-pro-ws-wrx80e-sage-se"
name = {_q("board " + name)}
slots = [
  {{ name = {_q(name)}, position = 1, size = 16, lanes = 16, gen = 4, source = "cpu" }},
  {{ name = "PCIEX16_3", position = 3, size = 16, lanes = 16, gen = 4, source = "cpu" }},
  {{ name = "PCIEX16_5", position = 5, size = 16, lanes = 16, gen = 4, source = "cpu" }},
  {{ name = "PCIEX16_7", position = 7, size = 16, lanes = 16, gen = 4, source = "cpu" }},
]

[[circuit]]
name = {_q(name)}
outlet = "{outlet}"

[[psu]]
part = "corsair-ax1600i"
circuit = {_q(name)}

[[gpu]]
count = {gpus}
part = {{ base = "gigabyte-rtx-3090-turbo", name = {_q(name)} }}
"""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / _file_name(name)
    path.write_text(text)
    return path


def user_catalog(directory: Path, name: str) -> Path:
    """A user catalog with a GPU chip and board named `name`, priced to come first in `recommend`, and a PSU
    whose id is `name` and which is invalid (so `catalog validate` reports it under `[id]`)."""
    def table(part_id: str, data: dict[str, object]) -> str:
        lines = [f"[{_q(part_id)}]"]
        lines += [f"{key} = {json.dumps(value)}" for key, value in data.items()
                  if not (isinstance(value, list) and value and isinstance(value[0], dict))]
        return "\n".join(lines) + "\n"

    chip = tomllib.loads((builtin_dir() / "gpu-chips.toml").read_text())["rtx-3090"]
    board = tomllib.loads((builtin_dir() / "gpus.toml").read_text())["nvidia-rtx-3090-fe"]
    chip["name"] = f"Chip {name}"
    board.update(name=f"Board {name}", chip="hostile-chip", used_price=1, used_price_low=1, used_price_high=1)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "gpu-chips.toml").write_text(table("hostile-chip", chip))
    (directory / "gpus.toml").write_text(table("hostile-board", board))
    (directory / "psus.toml").write_text(table(f"psu {name}", {"name": name, "wattage": "lots"}))
    return directory


def _terminal(label: str, result: Run) -> Output:
    return Output(label, f"{result.out}\n{result.err}", "terminal")


# -- the channels ----------------------------------------------------------------------------------------------
def reports(tmp_path: Path, name: str) -> list[Output]:
    build = hostile_build(tmp_path, name)
    out = [_terminal("check", run_cli("check", build)),
           _terminal("check --diagram", run_cli("check", build, "--diagram")),
           Output("check --format json", run_cli("check", build, "--format", "json").out, "json"),
           _terminal("place", run_cli("place", build)),
           Output("place --format json", run_cli("place", build, "--format", "json").out, "json"),
           _terminal("diff", run_cli("diff", build, build))]
    place = out[3].text
    toml_lines = [line.split("slot = ", 1)[1] for line in place.splitlines() if "slot = " in line]
    out += [Output("place's slot = line", f"slot = {line}\n", "toml") for line in toml_lines]
    return out


def exports(tmp_path: Path, name: str) -> list[Output]:
    build = hostile_build(tmp_path, name)
    kinds = {"md": "md", "bbcode": "bbcode", "csv": "csv", "json": "json", "text": "terminal",
             "nvidia-smi": "sh", "systemd": "systemd"}
    return [Output(f"export --format {fmt}", run_cli("export", build, "--format", fmt, "--force").out, kind)
            for fmt, kind in kinds.items()]


def toml_writers(tmp_path: Path, name: str) -> list[Output]:
    """Every TOML the planner writes: optimize, solve, init, the TUI's saves (the session's text)."""
    over = hostile_build(tmp_path / "optimize", name, gpus=4)  # four 350 W cards on 15 A: optimize changes it
    optimized = run_cli("optimize", over)
    partial = tmp_path / "partial" / _file_name(name)
    partial.parent.mkdir()
    partial.write_text(f'name = {_q(name)}\nregion = "us"\n\n[[gpu]]\ncount = 2\n'
                       f'part = {{ base = "gigabyte-rtx-3090-turbo", name = {_q(name)} }}\n')
    solved = run_cli("solve", partial, "-o", "-")
    started = tmp_path / "init" / _file_name(name)
    started.parent.mkdir()
    initialised = run_cli("init", started)
    session = BuildSession.open(hostile_build(tmp_path / "tui", name), Catalog([builtin_dir()]))
    session.set_field("name", f"{name} (edited)")  # a string the session writes anew, as the TUI's edits do
    session.set_field("gpu[0].part.name", f"{name} (edited)")
    return [Output("optimize", optimized.out, "toml"), _terminal("optimize (messages)", optimized),
            Output("solve -o -", solved.out, "toml"), _terminal("solve (messages)", solved),
            Output("init FILE", started.read_text() if started.exists() else "", "toml"),
            _terminal("init (messages)", initialised),
            Output("TUI save (session text)", session.text(), "toml")]


def recommend(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> list[Output]:
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(user_catalog(tmp_path / "user-catalog", name)))
    into, plot = tmp_path / "into.toml", tmp_path / "plot.svg"
    shown = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "int4",
                    "--budget", "4000", "--into", into, "--plot", plot)
    assert "hostile-board" in shown.out, shown.err  # the hostile chip is the first option, as meant
    return [_terminal("recommend", shown), Output("recommend --into", into.read_text(), "toml"),
            Output("recommend --plot", plot.read_text(), "svg")]


def catalog_and_arguments(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> list[Output]:
    directory = user_catalog(tmp_path / "user-catalog", name)
    validated = run_cli("catalog", "validate", directory)
    assert validated.code == 1
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(directory))
    return [_terminal("catalog validate DIR", validated),
            _terminal("catalog show", run_cli("catalog", "show", "hostile-board")),
            _terminal("unrecognized arguments", run_cli("check", "x.toml", "--bogus", name)),
            _terminal("invalid choice", run_cli("check", "x.toml", "--format", name)),
            _terminal("unknown command", run_cli(name))]


# -- the rule of each channel --------------------------------------------------------------------------------
def _no_forged_line(output: Output) -> None:
    assert not [line for line in output.text.splitlines() if line.lstrip("# ").startswith("forged")], output


def _parses(output: Output, name: str, tmp_path: Path) -> None:
    text, kind = output.text, output.kind
    if kind == "toml":
        data = tomllib.loads(text)
        assert "forged" not in data
    elif kind == "svg":
        ET.fromstring(text)
    elif kind == "json":
        json.loads(text)
    elif kind == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        assert len({len(row) for row in rows}) == 1, rows  # no row forged by a line break in a cell
        assert not [cell for row in rows for cell in row if cell[:1] in ("=", "+", "-", "@")]
    elif kind == "sh":
        script = tmp_path / "limits.sh"
        script.write_text(text)
        assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
        for line in text.splitlines():  # a name is only ever inside a comment
            for word in ("pwned", "forged"):
                if word in line:
                    assert "#" in line and line.index("#") < line.index(word), line
    elif kind == "systemd":
        for line in text.splitlines():
            if "pwned" in line or "forged" in line:
                assert line.startswith(("#", "Description=")), line
            if line.startswith("# Install: "):
                words = shlex.split(line.removeprefix("# Install: "))
                assert words[:2] == ["planner", "export"] and words[3:5] == ["--format", "systemd"], words
                if not RAW.search(name) and "\n" not in name:
                    assert words[2].endswith(_file_name(name)), words
    elif kind == "md":
        from markdown_it import MarkdownIt

        html = MarkdownIt("gfm-like").render(text)
        assert "<img" not in html and "<a " not in html and "<script" not in html, html
        assert "<em>em</em>" not in html and "<em>u</em>" not in html
    elif kind == "bbcode":
        assert "[url]" not in text and "[/url]" not in text


CHANNELS: dict[str, Callable[..., list[Output]]] = {
    "reports": reports, "exports": exports, "toml-writers": toml_writers}


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("channel", CHANNELS)
def test_every_output_channel_parses_and_shows_no_raw_control(tmp_path: Path, channel: str, hostile: str) -> None:
    name = HOSTILE[hostile]
    for output in CHANNELS[channel](tmp_path, name):
        assert "Traceback" not in output.text, output
        assert not RAW.search(output.text), (output.label, RAW.findall(output.text))
        _no_forged_line(output)
        _parses(output, name, tmp_path)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_catalog_ids_and_argument_values_reach_the_terminal_escaped(
        tmp_path: Path, hostile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for output in catalog_and_arguments(tmp_path, HOSTILE[hostile], monkeypatch):
        assert "Traceback" not in output.text, output
        assert not RAW.search(output.text), (output.label, RAW.findall(output.text))
        _no_forged_line(output)


#: `recommend` takes seconds a run: the hostile names in two groups, each class in one of them
RECOMMEND_NAMES = {
    "controls": "".join(HOSTILE[k] for k in ("cr", "esc-clear", "osc-title", "rlo", "rlm-isolate", "line-sep", "nel",
                                             "csi-c1")),
    "line-and-markup": " ".join(HOSTILE[k] for k in ("html", "bbcode", "shell", "percent", "formula", "newline")),
}


@pytest.mark.parametrize("hostile", RECOMMEND_NAMES)
def test_recommend_writes_a_hostile_chip_name_escaped_into_toml_and_svg(
        tmp_path: Path, hostile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    name = RECOMMEND_NAMES[hostile]
    for output in recommend(tmp_path, name, monkeypatch):
        assert not RAW.search(output.text), (output.label, RAW.findall(output.text))
        _no_forged_line(output)
        _parses(output, name, tmp_path)


def test_the_table_covers_every_class_the_issue_names() -> None:
    chars = "".join(HOSTILE.values())
    for needed in ("\n", "\r", "\x1b[", "\x1b]", "\x07", "\u202e", "\u2028", "\x85", "\x9b", "=", "[url]", "<img",
                   "$(", "%"):
        assert needed in chars, needed
    assert shutil.which("bash")  # the shell channel is checked with `bash -n`


# -- one regression test per class the issue lists (each failed on the code before issue 26) ---------------------
def test_recommend_plot_escapes_so_the_svg_is_well_formed_xml() -> None:
    from planner.recommend.plot import escape

    for name in HOSTILE.values():
        text = escape(f"2× {name}")
        assert not RAW.search(text)
        ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg"><text title="{text}">{text}</text></svg>')


def test_place_shows_a_slot_name_with_a_newline_on_one_line(tmp_path: Path) -> None:
    result = run_cli("place", hostile_build(tmp_path, HOSTILE["newline"]))
    assert result.code == 0
    assert not [line for line in result.out.splitlines() if line.startswith("forged")]
    assert "a\\nforged = 1 x16 G4" in result.out and "└ a\\nforged = 1 (position 1)" in result.out


def test_catalog_validate_shows_an_id_with_esc_and_bel_as_escapes(tmp_path: Path) -> None:
    directory = user_catalog(tmp_path / "cat", "\x1b[2J\x07")
    result = run_cli("catalog", "validate", directory)
    assert result.code == 1 and "[psu \\x1b[2J\\x07]" in result.err and not RAW.search(result.err)


@pytest.mark.parametrize("hostile", ["rlo", "line-sep", "nel", "csi-c1", "esc-clear"])
def test_optimize_and_a_tui_save_keep_the_escapes_the_input_had(tmp_path: Path, hostile: str) -> None:
    name = HOSTILE[hostile]
    build = hostile_build(tmp_path, name, gpus=4)
    optimized = run_cli("optimize", build)
    assert "power_limit" in optimized.out and not RAW.search(optimized.out)
    assert tomllib.loads(optimized.out)["gpu"][0]["part"]["name"] == name
    session = BuildSession.open(build, Catalog([builtin_dir()]))
    session.set_field("name", name)
    saved = session.save(tmp_path / "saved.toml").read_text()
    assert not RAW.search(saved) and tomllib.loads(saved)["name"] == name


def test_the_toml_writer_makes_comments_printable_and_strings_escaped() -> None:
    import tomlkit

    from planner.util import tomlfile

    document = tomlkit.parse('name = "x"\n')
    document.add(tomlkit.comment("2 × Chip \r\x1b[2J\u202e: chosen"))
    document["chip"] = "\u202e\u2028\x85\x9b\x1b\r\n\t\"\\"
    text = tomlfile.dumps(document)
    assert not RAW.search(text)
    assert tomllib.loads(text) == {"name": "x", "chip": "\u202e\u2028\x85\x9b\x1b\r\n\t\"\\"}
    assert "# 2 × Chip \\r\\x1b[2J\\u202e: chosen" in text


def test_markdown_export_neutralises_links_images_html_and_emphasis(tmp_path: Path) -> None:
    from markdown_it import MarkdownIt

    name = " ".join(HOSTILE[k] for k in ("md-link", "md-image", "html", "md-emphasis")) + " www.example.com"
    markdown = run_cli("export", hostile_build(tmp_path, name), "--format", "md").out
    html = MarkdownIt("gfm-like").render(markdown)
    assert "<img" not in html and "<a " not in html and "<em>em</em>" not in html
    assert "[x](javascript:alert(1))" in html and "&lt;img src=x onerror=alert(1)&gt;" in html  # shown as typed


def test_argparse_messages_echo_what_was_typed_escaped() -> None:
    for argv in (("check", "x.toml", "--bogus", "\x1b]0;pwned\x07"), ("check", "x.toml", "a\nforged"),
                 ("check", "--format", "\x1b[2J", "x.toml")):
        result = run_cli(*argv)
        assert result.code == 2 and not RAW.search(result.err), result.err
        assert not [line for line in result.err.splitlines() if line.startswith("forged")]


def test_the_systemd_install_comment_quotes_the_build_file_name(tmp_path: Path) -> None:
    build = hostile_build(tmp_path, "$(touch pwned)", outlet="nema-5-20")
    unit = run_cli("export", build, "--format", "systemd", "--force").out
    install = next(line for line in unit.splitlines() if line.startswith("# Install: "))
    assert shlex.split(install.removeprefix("# Install: "))[2] == str(build)
    assert f"'{build}'" in install


def test_recommend_complete_keeps_a_hostile_chip_name_on_one_line(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    name = "a\nforged \x1b[2J\u202e"
    monkeypatch.setenv("PLANNER_USER_CATALOG", str(user_catalog(tmp_path / "user-catalog", name)))
    into = tmp_path / "into.toml"
    shown = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "int4",
                    "--budget", "4000", "--gpus", "2", "--complete", "--top", "1", "--into", into)
    assert shown.code == 0 and "hostile-board" in shown.out, shown.err
    for output in (_terminal("recommend --complete", shown), Output("--into", into.read_text(), "toml")):
        assert not RAW.search(output.text), (output.label, RAW.findall(output.text))
        _no_forged_line(output)
        _parses(output, name, tmp_path)


def test_a_file_name_that_is_not_utf8_never_reaches_an_output_as_its_raw_bytes(tmp_path: Path) -> None:
    """0x9B (a CSI to a terminal that reads 8-bit controls) in a file name is carried by Python as U+DC9B, which
    an output would write back as the raw byte."""
    import os

    surrogates = re.compile("[\ud800-\udfff]")
    build = Path(os.fsdecode(bytes(tmp_path) + b"/build\x9b\xff.toml"))
    shutil.copy(hostile_build(tmp_path / "src", "x"), build)
    started = Path(os.fsdecode(bytes(tmp_path) + b"/new\x9b.toml"))
    outputs = [_terminal("check", run_cli("check", build)),
               Output("check --format json", run_cli("check", build, "--format", "json").out, "json"),
               Output("export --format systemd", run_cli("export", build, "--format", "systemd", "--force").out,
                      "terminal"),  # the name shown with each such byte a space (scripts' _plain)
               _terminal("no such file", run_cli("check", str(build) + "x")),
               _terminal("init", run_cli("init", started)),
               Output("init FILE", started.read_text(), "toml")]
    for output in outputs:
        assert not surrogates.search(output.text) and not RAW.search(output.text), output.label
        _parses(output, "x", tmp_path)
    assert "build\\udc9b\\udcff.toml" in outputs[0].text
