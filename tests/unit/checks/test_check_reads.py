"""Checks declare what they read (`@check(code, reads=…)`), and everything that must know which checks an edit can
change takes it from there: the optimiser, fix verification, the TUI's tuner (`codes_reading`) and the solver.
Importing the findings loads no check, and no import cycle is left in planner/checks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.checks.engine.context import Context, Settings
from planner.checks.engine.findings import Change, Finding
from planner.checks.engine.registry import (
    FIELDS,
    check,
    codes_reading,
    codes_reading_none,
    edit_fields,
    registered,
    unregister,
)
from planner.checks.engine.runner import run_checks, touched
from planner.checks.optimize import optimize, power_limit_codes
from planner.models.parts import Case, Cpu, GpuBoard, Motherboard, Outlet, Psu, Riser
from planner.util.errors import InputError

from conftest import EXAMPLES
from helpers import BASE, TEST_CATALOG, build, gpus

#: The fields power limits, PSUs and circuits are made of: what the optimiser, most fixes and the tuner edit.
POWER_FIELDS = frozenset({"gpus.power_limit", "psus", "psus.count", "circuits"})

FUSE_W = 600.0  # the made-up fuse of the test family: an error above this many watts of GPU power limits


# -- imports ---------------------------------------------------------------------------------------------------
def _planner_modules_after(statement: str) -> set[str]:
    listing = "print(json.dumps(sorted(m for m in sys.modules if m.startswith('planner'))))"
    probe = f"{statement}\nimport json, sys\n{listing}"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_importing_the_findings_loads_nothing_but_them_and_the_build_edits_they_name() -> None:
    assert _planner_modules_after("import planner.checks.engine.findings") == {
        "planner", "planner.checks", "planner.checks.engine", "planner.checks.engine.findings", "planner.build",
        "planner.build.edit"}


def test_importing_the_registry_or_the_context_loads_no_check() -> None:
    loaded = _planner_modules_after("import planner.checks.engine.registry, planner.checks.engine.context")
    assert not {m for m in loaded if m.startswith("planner.checks.rules") or m in {"planner.checks.optimize",
                                                                                   "planner.checks.engine.runner"}}


def test_no_import_cycle_is_left_in_the_checks() -> None:
    """Every import between planner modules, at the top or inside a function (TYPE_CHECKING ones too), read off
    the source: no planner.checks module reaches itself again."""
    import ast
    import pathlib

    import planner

    root = pathlib.Path(planner.__file__).parent.parent
    modules = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
               for p in (root / "planner").rglob("*.py")}
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                edges[module] |= {a.name for a in node.names if a.name in modules}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1], base]).strip(".")
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    edges[module] |= {target} if target in modules else {base} if base in modules else set()

    def reaches(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    cyclic = sorted(m for m in modules if m.startswith("planner.checks") and m in reaches(m))
    assert cyclic == []


# -- declarations --------------------------------------------------------------------------------------------------
def test_every_registered_check_declares_what_it_reads_in_the_vocabulary() -> None:
    for code, registered_check in registered().items():
        assert registered_check.reads and registered_check.reads <= FIELDS.keys(), code


def test_a_check_that_reads_an_unknown_field_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="unknown fields"):
        check("fuse.rating", reads={"gpus.power_limit", "fuses"})


def _power_edit(changes: list[Change]) -> bool:
    fields = touched(changes)
    return fields is not None and fields <= POWER_FIELDS


def test_an_edit_of_power_limits_psus_or_circuits_touches_only_power_fields_and_others_do_not() -> None:
    assert _power_edit([Change("gpu[1].power_limit", "300 W"), Change("psu[0].part", "x"),
                        Change("circuit[0].outlet", "y")])
    assert not _power_edit([Change("gpu[0].power_limit", "300 W"), Change("case", "x")])
    assert not _power_edit([Change("gpu[0].slot", "PCIE1")])
    assert not _power_edit([Change("gpu", [])])  # a whole [[gpu]] list may change anything of the cards
    assert edit_fields("no.such.key") is None


# -- a new family that reads power limits -----------------------------------------------------------------------------
def _fuse(ctx: Context) -> list[Finding]:
    """The GPUs' power limits against a made-up fuse on the circuit."""
    total = sum(g.power_limit for g in ctx.build.gpus)
    if total <= FUSE_W:
        return []
    fixes = [fix] if ctx.propose_fixes and (fix := ctx.fix(
        "lower every limit to 250 W",
        [Change(f"gpu[{g}].power_limit", "250 W") for g in sorted({g.spec_index for g in ctx.build.gpus})],
        "fuse.rating")) else []
    return [Finding("fuse.rating", "error", f"{total:g} W of power limits on a {FUSE_W:g} W fuse.", value=total,
                    limit=FUSE_W, unit="W", fixes=fixes)]


def _register(code: str, reads: set[str], fn: Callable[[Context], list[Finding]]) -> Iterator[None]:
    registered()  # the built-in families first, so the new check runs after them
    check(code, reads=reads)(fn)
    yield
    unregister(code)


@pytest.fixture
def fuse_check() -> Iterator[None]:
    yield from _register("fuse.rating", {"gpus.power_limit", "circuits"}, _fuse)


TWO_3090 = BASE + gpus("nvidia-rtx-3090-fe", 2)  # 2 × 350 W: over the fuse, within everything else


@pytest.mark.usefixtures("fuse_check")
def test_the_optimiser_lowers_the_limits_to_clear_a_new_family_that_reads_them() -> None:
    plan = optimize(build(TWO_3090), TEST_CATALOG)
    assert "fuse.rating" in plan.clears
    assert sum(plan.limits.values()) * 2 <= FUSE_W < sum(plan.limits.values()) * 2 + 2 * 5  # the highest 5 W step


@pytest.mark.usefixtures("fuse_check")
def test_the_tuner_and_the_optimiser_watch_a_new_family_that_reads_power_limits() -> None:
    assert "fuse.rating" in codes_reading("gpus.power_limit")
    assert "fuse.rating" in power_limit_codes()


@pytest.mark.usefixtures("fuse_check")
def test_fix_verification_reruns_a_new_family_on_a_power_limit_edit() -> None:
    [finding] = [f for f in run_checks(build(TWO_3090), TEST_CATALOG) if f.code == "fuse.rating"]
    assert [(fix.description, fix.verified) for fix in finding.fixes] == [("lower every limit to 250 W", True)]


def _psu_in_case(ctx: Context) -> list[Finding]:
    """A made-up case rule that reads the PSU: no Corsair AX1600i in this case."""
    if not any(p.part.id == "corsair-ax1600i" for p in ctx.build.psus):
        return []
    fix = ctx.fix("use another PSU", [Change("psu[0].part", "be-quiet-dark-power-pro-13-1600w")], "case.psu-test") \
        if ctx.propose_fixes else None
    return [Finding("case.psu-test", "error", "No AX1600i in this case.", fixes=[fix] if fix else [])]


@pytest.fixture
def case_check_reading_psus() -> Iterator[None]:
    yield from _register("case.psu-test", {"case", "psus"}, _psu_in_case)


@pytest.mark.usefixtures("case_check_reading_psus")
def test_a_case_check_that_reads_the_psus_is_rerun_when_a_psu_edit_is_verified() -> None:
    [finding] = [f for f in run_checks(build(TWO_3090), TEST_CATALOG) if f.code == "case.psu-test"]
    assert [(fix.description, fix.verified) for fix in finding.fixes] == [("use another PSU", True)]
    assert "case.psu-test" not in codes_reading_none(POWER_FIELDS)  # its findings are not kept on a PSU edit


# -- the reads are exact: a field a check does not declare never changes its findings ------------------------------
def _unlike(parts: list[Any], current: Any, *keys: Callable[[Any], float]) -> Iterator[Any]:
    """For each key, the part most unlike `current` by it (so a change shows wherever the field is read)."""
    others = [p for p in parts if p.id != current.id]
    for key in keys:
        yield max(others, key=lambda p: abs(key(p) - key(current)))


def _perturbations(b: ResolvedBuild, catalog: Catalog) -> Iterator[tuple[str, ResolvedBuild]]:
    """The build with one field changed at a time, in a few directions each (the same cards, slots and counts
    where another field is changed, so nothing else moves; "motherboard+gpus.mount": another board, and the slots
    of this one unnamed)."""
    psus = [p for p in catalog.all("psu", curated=True) if isinstance(p, Psu)]
    outlets = [o for o in catalog.all("outlet", curated=True) if isinstance(o, Outlet)]
    cases = [c for c in catalog.all("case", curated=True) if isinstance(c, Case)]
    cpus = [c for c in catalog.all("cpu", curated=True) if isinstance(c, Cpu)]
    boards = [m for m in catalog.all("motherboard", curated=True) if isinstance(m, Motherboard)]
    cards = [g for g in catalog.all("gpu", curated=True) if isinstance(g, GpuBoard)]
    cable = next(r for r in catalog.all("riser", curated=True) if isinstance(r, Riser) and r.kind == "cable")
    for key in (lambda g: g.length, lambda g: g.slot_width, lambda g: g.tdp):
        yield "gpus", b._replace(gpus=[g._replace(board=next(_unlike(cards, g.board, key))) for g in b.gpus])
    unpinned = [g._replace(slot=None) for g in b.gpus]
    for board in _unlike(boards, b.motherboard, lambda m: len(m.slots), lambda m: m.slots[-1].position):
        yield "motherboard+gpus.mount", b._replace(motherboard=board, gpus=unpinned)
    yield "gpus.power_limit", b._replace(gpus=[g._replace(power_limit=max(g.board.power_limit_min, g.power_limit - 60),
                                                          power_limit_set=True) for g in b.gpus])
    for key in (lambda p: p.wattage, lambda p: p.length or 0.0, lambda p: p.connectors.pcie_8pin):
        yield "psus", b._replace(psus=[p._replace(part=next(_unlike(psus, p.part, key))) for p in b.psus])
    yield "circuits", b._replace(circuits=[c._replace(outlet=next(_unlike(outlets, c.outlet, lambda o: o.voltage)),
                                                      other_load=c.other_load + 300) for c in b.circuits])
    for case in _unlike(cases, b.case, lambda c: c.expansion_slots, lambda c: c.max_gpu_length,
                        lambda c: c.vertical_gpu_mounts, lambda c: c.intake_airflow or 0.0):
        yield "case", b._replace(case=case)
    for cpu in _unlike(cpus, b.cpu, lambda c: c.pcie_gen, lambda c: c.pcie_lanes, lambda c: c.tdp):
        yield "cpu", b._replace(cpu=cpu)
    yield "ram", b._replace(extras=b.extras.model_copy(update={
        "ram_type": "ddr4" if b.extras.ram_type != "ddr4" else "ddr5-rdimm", "ram_modules": 16}))
    yield "extras", b._replace(extras=b.extras.model_copy(update={
        "drives": 12, "fans": 0 if b.extras.fans else 9, "other": b.extras.other + 250}))
    yield "ambient", b._replace(ambient=b.ambient + 12)
    yield "workload", b._replace(workload="llm-inference" if b.workload != "llm-inference" else "llm-train")
    if any(g.slot for g in b.gpus):
        yield "gpus.mount", b._replace(gpus=[g._replace(slot=None) for g in b.gpus])
    yield "risers", b._replace(gpus=[g._replace(riser=cable if g.index == 0 else g.riser) for g in b.gpus])
    yield "risers", b._replace(gpus=[g._replace(riser=None if g.riser else cable) for g in b.gpus])


def _findings_by_code(b: ResolvedBuild, catalog: Catalog) -> dict[str, Any]:
    ctx = Context(b, catalog, Settings(), propose_fixes=False)
    found: dict[str, Any] = {}
    for code, registered_check in registered().items():
        try:
            found[code] = list(registered_check.run(ctx))
        except InputError as error:  # a placement too large to search
            found[code] = error.message
    return found


HEAD = """case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
[[circuit]]
name = "wall"
outlet = "nema-5-20"
[[psu]]
part = "corsair-ax1600i"
"""


def _gpu(part: str, *lines: str) -> str:
    return "\n".join(["[[gpu]]", f"part = {part}", *lines]) + "\n"


#: Builds that make the checks the examples leave quiet say something (so a field they read shows).
PROBES = {
    "pinned-overlap-out-of-range": HEAD + _gpu('"nvidia-rtx-3090-fe"', 'slot = "PCIEX16_1"', 'power_limit = "450 W"')
    + _gpu('"nvidia-rtx-3090-fe"', 'slot = "PCIEX16_2"'),
    "past-the-case": HEAD.replace("fractal-meshify-2-xl", "nzxt-h510")
    + _gpu('"nvidia-rtx-3090-fe"', 'slot = "PCIEX16_7"'),
    "ribbon-risers": HEAD + _gpu('"gigabyte-rtx-3090-turbo"', "count = 3", 'riser = "linkup-pcie4-riser-200mm"'),
    "two-psus-pinned": HEAD + '[[psu]]\npart = "corsair-hx1000"\n'
    + _gpu('"gigabyte-rtx-3090-turbo"', "count = 4", "psu = 2"),
    "odd-parts": HEAD.replace('"fractal-meshify-2-xl"', '{ base = "fractal-meshify-2-xl", max_psu_length = "150 mm" }')
    .replace("amd-threadripper-pro-5975wx", "amd-ryzen-9-7950x") + '[extras]\nram_type = "ddr4"\n'
    + _gpu('{ base = "gigabyte-rtx-3090-turbo", cooler = "passive", length = "420 mm", name = "Passive" }'),
}
BUILDS = {**{p.stem: p.read_text() for p in sorted(EXAMPLES.glob("*.toml"))}, **PROBES}


@pytest.mark.parametrize("name", BUILDS)
def test_a_field_a_check_does_not_declare_never_changes_its_findings(name: str, catalog: Catalog) -> None:
    from planner.build.buildfile import loads
    from planner.build.resolve import resolve

    spec, raw = loads(BUILDS[name], f"{name}.toml")
    base = resolve(spec, raw, catalog, label=f"{name}.toml", text=BUILDS[name])
    before = _findings_by_code(base, catalog)
    for field, changed in _perturbations(base, catalog):
        after = _findings_by_code(changed, catalog)
        moved = [code for code in before
                 if not set(field.split("+")) & registered()[code].reads and after[code] != before[code]]
        assert moved == [], f"{field} changes {moved} on {name}"


def test_an_edit_path_names_the_fields_it_changes() -> None:
    assert edit_fields("gpu[0].power_limit") == {"gpus.power_limit"}
    assert edit_fields("psu[2].circuit") == {"circuits"}
    assert edit_fields("psu") == POWER_FIELDS - {"gpus.power_limit"}
