"""`planner recommend --build` (the build's checks limit the options) and `--into` (the choice goes into
a build file, which `planner check` then reads)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from planner.catalog import Catalog
from planner.checks.engine.runner import run_checks
from planner.models.parts import GpuBoard
from planner.models.workloads import WorkloadModel
from planner.recommend.fit import BuildFit
from planner.recommend.memory import MemoryRequest
from planner.recommend.rank import Recommendation, Request, recommend

from conftest import example, run_cli

DUAL = example("pass-dual-3090-wrx80.toml")
QUAD = example("fail-psu-quad-3090-fe-1600w.toml")


@pytest.fixture(scope="module")
def in_dual_build(catalog: Catalog) -> tuple[Recommendation, BuildFit]:
    fit = BuildFit(DUAL, catalog)
    model = catalog.typed("llm", "llama-3.1-8b", WorkloadModel)
    return recommend(Request(MemoryRequest("llm-finetune", model, method="qlora"), fit=fit), catalog), fit


def test_options_the_builds_checks_reject_are_left_out_with_the_check_that_failed(
        in_dual_build: tuple[Recommendation, BuildFit]) -> None:
    rec, _ = in_dual_build
    rejected = [c for c in rec.candidates if c.excluded_kind == "build"]
    assert rejected
    assert all(str(DUAL) in (c.excluded_reason or "") for c in rejected)


def test_every_fitting_option_passes_the_builds_checks(in_dual_build: tuple[Recommendation, BuildFit],
                                                        catalog: Catalog) -> None:
    rec, fit = in_dual_build
    for option in rec.by_value[:5]:
        assert option.board is not None
        build = fit.resolve_with(catalog.typed("gpu", option.board, GpuBoard), option.count)
        assert not [f for f in run_checks(build, catalog, propose_fixes=False) if f.severity == "error"]


def test_the_count_goes_up_to_what_the_build_takes(in_dual_build: tuple[Recommendation, BuildFit]) -> None:
    rec, _ = in_dual_build
    assert max(c.count for c in rec.by_value) > 4  # beyond the default 1–4: the build decides


def test_into_replaces_the_gpus_of_an_existing_build_and_keeps_its_comments(tmp_path: Path) -> None:
    build = tmp_path / "quad.toml"
    shutil.copy(QUAD, build)
    result = run_cli("recommend", "--workload", "llm-train", "--model", "llama-3.2-1b", "--build", build,
                     "--into", build, "--format", "json")
    assert result.code == 0
    into = json.loads(result.out)["into"]
    assert into["replaced"] == ["4 × nvidia-rtx-3090-fe"]
    text = build.read_text()
    assert text.startswith("# Shows: a PSU failure")  # the user's comments stay
    assert f'part = "{into["board"]}"' in text and text.count("[[gpu]]") == 1
    assert run_cli("check", build).code in (0, 1)  # a build file planner check reads (pass, warn or fail)


def test_into_a_new_file_writes_a_starter_build_that_planner_check_reads(tmp_path: Path) -> None:
    build = tmp_path / "new.toml"
    result = run_cli("recommend", "--workload", "llm-inference", "--model", "llama-3-70b", "--precision", "int4",
                     "--budget", "4000", "--into", build, "--no-chart")
    assert result.code == 0
    assert "planner check says" in result.out
    assert run_cli("check", build).code in (0, 1)
