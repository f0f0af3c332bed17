"""The HTML report (issue 28) in a real browser: Debian's chromium, driven by Playwright for Python through its
`executable_path` (never a downloaded browser; `.ci/run` installs the package when it is missing).

The page must open offline (no request but its own file, no console error), show the verdict, the plan, every
part, every finding, the totals and both diagrams, lay out at 1280×800 and 390×844 in light and dark (the
screenshots are kept in tests/artifacts/), and show hostile names as text. `assert_report_page` is the DOM check;
the tests that delete an SVG, the plan or a part from the page show that it fails then."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from planner.api import check_build, load_build
from planner.build.parts_list import parts_list
from planner.build.resolve import ResolvedBuild
from planner.catalog import Catalog
from planner.export.html import to_html
from planner.report import Report

from conftest import ROOT, example, run_cli
from helpers import TEST_CATALOG, TEST_CATALOG_DIR, build

ARTIFACTS = ROOT / "tests" / "artifacts"
QUAD = "fail-psu-quad-3090-fe-1600w.toml"
CHROMIUM = shutil.which("chromium") or next((p for p in ("/usr/bin/chromium", "/usr/lib/chromium/chromium")
                                             if Path(p).is_file()), None)
SIZES = [(1280, 800), (390, 844)]
SCHEMES = ["light", "dark"]

#: The hostile names of issue 26's channel table, for the HTML channel: line breaks, terminal sequences, bidi and
#: separator characters, markup of every channel, a shell substitution, a formula.
HOSTILE = {
    "newline": "GPU\nforged line", "cr": "GPU\rforged", "esc": "GPU\x1b[2J\x1b]0;pwned\x07", "bel": "bell\x07",
    "rlo": "GPU \u202eevil", "line-separator": "GPU\u2028next", "nel": "GPU\x85next", "csi": "GPU\x9b2J",
    "img": "<img src=x onerror=alert(1)>", "script": "<script>alert(1)</script>", "url": "[url=http://x]y[/url]",
    "md-link": "[x](javascript:alert(1))", "shell": "$(touch /tmp/pwned)", "formula": "=cmd|' /C calc'!A0",
    "percent": "100% %s %n", "quote": "\"'><svg onload=alert(1)>", "ampersand": "&lt;b&gt; & &amp;",
}


# -- rendering ---------------------------------------------------------------------------------------------------

def _quad(catalog: Catalog) -> tuple[ResolvedBuild, Report, str]:
    resolved = load_build(example(QUAD), catalog)
    report = check_build(resolved, catalog)
    return resolved, report, to_html(resolved, report, catalog)


@pytest.fixture(scope="module")
def quad(catalog: Catalog) -> tuple[ResolvedBuild, Report, str]:
    return _quad(catalog)


def _hostile_build(name: str) -> str:
    """A build whose own name, circuit, PSU and one [[gpu]] table's card carry `name`."""
    quoted = json.dumps(name)
    return f"""
name = {quoted}
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
[[circuit]]
name = {quoted}
outlet = "nema-5-20"
[[psu]]
part = {{ base = "corsair-ax1600i", name = {quoted} }}
circuit = {quoted}
[[gpu]]
part = {{ base = "nvidia-rtx-3090-fe", name = {quoted} }}
count = 2
[[gpu]]
part = "gigabyte-rtx-3090-turbo"
"""


def html_channel(name: str) -> str:
    """The HTML report of a build whose names are `name` (the HTML row of the hostile-names table)."""
    resolved = build(_hostile_build(name))
    return to_html(resolved, check_build(resolved, TEST_CATALOG), TEST_CATALOG)


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [key for key, _ in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parsed(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


# -- the HTML channel, without a browser -------------------------------------------------------------------------

@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_name_creates_no_element_and_no_raw_control_byte_in_the_html(name: str) -> None:
    page = html_channel(name)
    plain = _parsed(html_channel("Plain name"))
    hostile = _parsed(page)
    assert hostile.tags == plain.tags  # no element created, none lost
    assert not [a for a in hostile.attributes if a.startswith("on")]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", page)
    text = "".join(hostile.text)
    if name.isprintable():  # shown as it is written
        assert name in text
    assert "<script" not in page.lower().replace("&lt;script", "")


def test_the_page_has_no_script_and_forbids_every_request() -> None:
    page = html_channel("Plain")
    assert "<script" not in page and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "default-src 'none'" in page


def test_the_template_ships_inside_the_package() -> None:
    from importlib.resources import files

    assert (files("planner.export") / "templates" / "report.html.j2").is_file()


# -- the browser ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no chromium binary on this machine (Debian: apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield launched
        launched.close()


class Loaded:
    """A page opened from a file, with what it logged and asked for."""

    def __init__(self, browser: Any, path: Path, *, width: int = 1280, height: int = 800,
                 scheme: str = "light") -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                                           java_script_enabled=True)
        self.context.set_offline(True)
        self.console: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page = self.context.new_page()
        self.page.set_default_timeout(30_000)  # generous: two shared cores; a missing element is counted, not awaited
        self.page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url, wait_until="load")

    def close(self) -> None:
        self.context.close()


def _open(browser: Any, tmp_path: Path, html: str, name: str = "report.html", **size: Any) -> Loaded:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    return Loaded(browser, path, **size)


def _texts(page: Any, selector: str) -> list[str]:
    result: list[str] = page.eval_on_selector_all(selector, "els => els.map(e => e.textContent)")
    return result


def assert_report_page(page: Any, resolved: ResolvedBuild, report: Report) -> None:
    """The verdict, the plan, every part, every finding, the totals and both diagrams with their elements."""
    for element in ("#verdict", "#plan", "#parts", "#findings", "#total-all"):
        assert page.locator(element).count() == 1, f"no {element}"
    verdict = page.text_content("#verdict") or ""
    assert verdict.startswith(report.verdict.upper()), verdict
    plan = page.text_content("#plan") or ""
    if report.plan is not None:
        assert "The plan" in plan and report.plan.description[:40] in " ".join(plan.split()), plan
    else:
        assert "The plan" in plan
    names = _texts(page, "#parts tr.part .part-name")
    rows = parts_list(resolved)
    assert names == [r.name for r in rows], names
    codes = page.eval_on_selector_all("#findings li.finding", "els => els.map(e => e.dataset.code)")
    assert sorted(codes) == sorted(f.code for f in report.findings)
    assert (page.text_content("#total-all td") or "").strip() == f"${sum(r.line_total or 0 for r in rows):,.2f}"
    assert page.locator("#total-to-buy").count() == 1 and page.locator("#total-owned").count() == 1
    assert page.locator("svg#slot-diagram").count() == 1, "no slot diagram"
    assert page.locator("svg#slot-diagram rect.card").count() == len(resolved.gpus), "one rect per card"
    assert page.locator("svg#slot-diagram rect.slot").count() >= 1, "the board's slots"
    assert page.locator("svg#power-chain").count() == 1, "no power chain"
    paths = len(resolved.psus) + len(resolved.gpus) + 2 + sum(1 for c in resolved.circuits if c.other_load)
    assert page.locator("svg#power-chain path.edge").count() == paths, "one edge per power path"
    assert page.locator("svg#power-chain rect.node").count() == len(resolved.circuits) + len(resolved.psus) + len(
        resolved.gpus) + 2 + sum(1 for c in resolved.circuits if c.other_load)
    assert page.locator("svg.slowdown circle.chosen").count() >= 1, "a slowdown curve with its chosen point"
    assert page.locator("#cards tr.card-row").count() == len(resolved.gpus)


def test_the_quad_example_opens_offline_with_no_console_error_and_no_request(
        browser: Any, tmp_path: Path, quad: tuple[ResolvedBuild, Report, str]) -> None:
    resolved, report, html = quad
    loaded = _open(browser, tmp_path, html)
    try:
        assert loaded.requests == [loaded.url]  # its own file, nothing else
        assert not loaded.errors and not [m for m in loaded.console if m.startswith(("error", "warning"))], \
            loaded.console
        assert_report_page(loaded.page, resolved, report)
    finally:
        loaded.close()


def test_the_cli_writes_the_page_that_opens(browser: Any, tmp_path: Path, catalog: Catalog) -> None:
    out = tmp_path / "quad.html"
    result = run_cli("export", example(QUAD), "--format", "html", "-o", out)
    assert result.code == 0, result.err
    resolved, report, _ = _quad(catalog)
    loaded = Loaded(browser, out)
    try:
        assert loaded.requests == [loaded.url] and not loaded.errors
        assert_report_page(loaded.page, resolved, report)
    finally:
        loaded.close()


@pytest.mark.parametrize(("what", "pattern"), [
    ("slot diagram", r'<svg id="slot-diagram".*?</svg>'),
    ("power chain", r'<svg id="power-chain".*?</svg>'),
    ("plan", r'<div id="plan".*?</div>'),
    ("a part", r'<tr class="part" data-kind="gpu">.*?</tr>'),
    ("a card's rect", r'<rect class="card [^"]*"[^>]*>.*?</rect>'),
    ("a power path", r'<path class="edge dc"[^>]*>.*?</path>'),
])
def test_the_page_check_fails_when_a_diagram_the_plan_or_a_part_is_missing(
        browser: Any, tmp_path: Path, quad: tuple[ResolvedBuild, Report, str], what: str, pattern: str) -> None:
    resolved, report, html = quad
    broken, n = re.subn(pattern, "", html, count=1, flags=re.DOTALL)
    assert n == 1, what
    loaded = _open(browser, tmp_path, broken)
    try:
        with pytest.raises(AssertionError):
            assert_report_page(loaded.page, resolved, report)
    finally:
        loaded.close()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_screenshots_lay_out_without_overflow_and_leave_the_verdict_clear(
        browser: Any, tmp_path: Path, quad: tuple[ResolvedBuild, Report, str], scheme: str, width: int,
        height: int) -> None:
    _, _, html = quad
    loaded = _open(browser, tmp_path, html, width=width, height=height, scheme=scheme)
    page = loaded.page
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / f"html-report-{scheme}-{width}x{height}"
        page.screenshot(path=f"{shot}.png", full_page=True, timeout=60_000)
        page.screenshot(path=f"{shot}-top.png", timeout=60_000)
        scroll, inner = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert scroll <= inner, f"horizontal overflow at {width} px: {scroll} > {inner}"
        box = page.locator("#verdict").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, "the verdict is on the first screen"
        covered = page.evaluate("""() => {
            const v = document.getElementById('verdict'), r = v.getBoundingClientRect();
            const points = [[r.left + 3, r.top + 3], [r.right - 3, r.top + 3], [r.left + 3, r.bottom - 3],
                            [r.right - 3, r.bottom - 3], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
            return points.filter(([x, y]) => !v.contains(document.elementFromPoint(x, y))).length;
        }""")
        assert covered == 0, "something overlaps the verdict"
        # everything that overflows is inside a diagram's own scrolling container
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > innerWidth + 1 && !e.closest('.diagram'))
            .map(e => e.tagName + '.' + e.className)""")
        assert wide == [], wide
        dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark == (scheme == "dark") and (background == "rgb(255, 255, 255)") == (scheme == "light"), background
    finally:
        loaded.close()


def test_hostile_names_render_as_text_in_the_browser_no_element_no_script(browser: Any, tmp_path: Path) -> None:
    plain = _open(browser, tmp_path, html_channel("Plain name"), "plain.html")
    try:
        plain_count = plain.page.evaluate("document.getElementsByTagName('*').length")
    finally:
        plain.close()
    for key, name in HOSTILE.items():
        loaded = _open(browser, tmp_path, html_channel(name), f"{key}.html")
        page = loaded.page
        try:
            assert not loaded.dialogs and not loaded.errors, (key, loaded.dialogs, loaded.errors)
            assert loaded.requests == [loaded.url], (key, loaded.requests)
            assert page.evaluate("document.getElementsByTagName('*').length") == plain_count, key
            assert page.locator("script, img, iframe, object, embed, a").count() == 0, key
            assert page.evaluate("document.querySelectorAll('svg svg, foreignObject').length") == 0, key
            shown = page.text_content("#build-name") or ""
            if name.isprintable():
                assert shown == name, (key, shown)
            else:
                assert "\\" in shown, (key, shown)  # the control character as its escape
            assert name.isprintable() is False or name in (page.text_content("#parts") or ""), key
        finally:
            loaded.close()


# -- the lab's report (planner lab LAB --format html) -------------------------------------------------------------

LABS = ROOT / "examples" / "labs"
GOLDEN = ROOT / "tests" / "golden"
GUIDE = LABS / "guide-mixed-208v-3ph.toml"


def _lab_page(path: Path, catalog: Catalog) -> tuple[Any, str]:
    from planner.export.lab_html import lab_to_html
    from planner.lab.report import check_lab

    report = check_lab(path, catalog)
    return report, lab_to_html(report)


def _hostile_lab(tmp_path: Path, name: str) -> Path:
    """A lab whose own name, PDU model, cooling source and an inline build's card carry `name`."""
    quoted = json.dumps(name)
    path = tmp_path / "lab.toml"
    path.write_text(f"""
name = {quoted}
[[machine]]
name = "box"
count = 2
[machine.build]
case = "fractal-meshify-2-xl"
motherboard = "asus-pro-ws-wrx80e-sage-se"
cpu = "amd-threadripper-pro-5975wx"
[[machine.build.psu]]
part = "corsair-ax1600i"
[[machine.build.gpu]]
part = {{ base = "gigabyte-rtx-3090-turbo", name = {quoted} }}
count = 2
[[feed]]
name = "rack"
voltage = 208
breaker_a = 30
[[pdu]]
name = "pdu"
feed = "rack"
model = {quoted}
[[pdu.bank]]
name = "A"
breaker_a = 20
c19 = 2
[cooling]
kind = "room"
removal_w = 10000
source = {quoted}
""", encoding="utf-8")
    return path


def assert_lab_page(page: Any, report: Any) -> None:
    """The verdict, the lab's findings, every machine, every line and outlet, the power tree with a node per feed,
    circuit, UPS, PDU, bank and PSU, heat, network and every part of the money with its totals."""
    for element in ("#verdict", "#findings", "#machines", "#phases", "#heat", "#network", "#money", "#total-to-buy",
                    "#markets", "#energy"):
        assert page.locator(element).count() == 1, f"no {element}"
    assert (page.text_content("#verdict") or "").startswith(report.verdict.upper())
    codes = page.eval_on_selector_all("#findings li.finding", "els => els.map(e => e.dataset.code)")
    assert sorted(codes) == sorted(f.code for f in report.findings)
    assert page.locator("tr.machine-row").count() == len(report.machines)
    assert page.locator("tr.line-row").count() == len(report.lines)
    assert page.locator("tr.outlet-row").count() == len(report.nodes)
    spec = report.spec
    pdus_behind_ups = sum(1 for u in spec.ups for fed in u.feeds)
    nodes = (len(spec.feed) + len(spec.circuit) + pdus_behind_ups + len(spec.pdu)
             + sum(len(p.bank) for p in spec.pdu) + len(report.plugs))
    assert page.locator("svg#power-tree rect.node").count() == nodes, "a node per feed, UPS, PDU, bank and PSU"
    assert page.locator("svg#power-tree rect.node.psu").count() == len(report.plugs)
    sources = len(spec.feed) + len(spec.circuit)
    assert page.locator("svg#power-tree path.edge").count() == nodes - sources, "an edge into every other node"
    assert page.locator("#money tr.part").count() == len(report.money.lines)
    total = report.money.chosen.to_buy_usd
    assert (page.text_content("#total-to-buy td") or "").strip() == f"${total:,.2f}"


def test_the_lab_page_matches_its_golden_file() -> None:
    # the frozen test catalogs: curating the built-in ones does not change it
    frozen = Catalog([TEST_CATALOG_DIR, ROOT / "tests" / "data" / "lab-catalog"])
    _, html = _lab_page(ROOT / "tests" / "data" / "labs" / "golden.toml", frozen)
    golden = GOLDEN / "lab-report.html"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(html, encoding="utf-8")
    assert html == golden.read_text(encoding="utf-8"), \
        f"UPDATE_GOLDEN=1 pytest {__file__} regenerates it after a deliberate change"


@pytest.mark.parametrize("name", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_name_in_a_lab_creates_no_element_and_no_raw_control_byte(tmp_path: Path, catalog: Catalog,
                                                                            name: str) -> None:
    _, page = _lab_page(_hostile_lab(tmp_path, name), catalog)
    _, plain = _lab_page(_hostile_lab(tmp_path, "Plain name"), catalog)
    assert _parsed(page).tags == _parsed(plain).tags
    assert not [a for a in _parsed(page).attributes if a.startswith("on")]
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", page)
    if name.isprintable():
        assert name in "".join(_parsed(page).text)


def test_the_lab_page_opens_offline_with_every_part_of_it(browser: Any, tmp_path: Path, catalog: Catalog) -> None:
    report, html = _lab_page(GUIDE, catalog)
    loaded = _open(browser, tmp_path, html, "lab.html")
    try:
        assert loaded.requests == [loaded.url] and not loaded.errors
        assert not [m for m in loaded.console if m.startswith(("error", "warning"))], loaded.console
        assert_lab_page(loaded.page, report)
    finally:
        loaded.close()


@pytest.mark.parametrize("lab", ["office-four-dual-4090.toml", "closet-eight-quad-3090.toml"])
def test_the_cli_writes_the_lab_page_that_opens(browser: Any, tmp_path: Path, catalog: Catalog, lab: str) -> None:
    out = tmp_path / "lab.html"
    result = run_cli("lab", LABS / lab, "--format", "html", "-o", out)
    report, _ = _lab_page(LABS / lab, catalog)
    assert result.code == (1 if report.verdict == "fail" else 0), result.err
    loaded = Loaded(browser, out)
    try:
        assert loaded.requests == [loaded.url] and not loaded.errors
        assert_lab_page(loaded.page, report)
    finally:
        loaded.close()
    assert run_cli("lab", LABS / lab, "--format", "html", "-o", out).code == 2  # never overwrites without --force


@pytest.mark.parametrize(("what", "pattern"), [
    ("power tree", r'<svg id="power-tree".*?</svg>'),
    ("a PSU's node", r'<g class="power-node psu">.*?</g>'),
    ("a line", r'<tr class="line-row".*?</tr>'),
    ("a part", r'<tr class="part" data-kind="pdu">.*?</tr>'),
])
def test_the_lab_page_check_fails_when_a_part_of_it_is_missing(browser: Any, tmp_path: Path, catalog: Catalog,
                                                               what: str, pattern: str) -> None:
    report, html = _lab_page(GUIDE, catalog)
    broken, n = re.subn(pattern, "", html, count=1, flags=re.DOTALL)
    assert n == 1, what
    loaded = _open(browser, tmp_path, broken, "lab.html")
    try:
        with pytest.raises(AssertionError):
            assert_lab_page(loaded.page, report)
    finally:
        loaded.close()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_lab_page_lays_out_without_overflow(browser: Any, tmp_path: Path, catalog: Catalog, scheme: str,
                                                width: int, height: int) -> None:
    _, html = _lab_page(GUIDE, catalog)
    loaded = _open(browser, tmp_path, html, "lab.html", width=width, height=height, scheme=scheme)
    page = loaded.page
    try:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=f"{ARTIFACTS / f'lab-report-{scheme}-{width}x{height}'}.png", full_page=True,
                        timeout=60_000)
        scroll, inner = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
        assert scroll <= inner, f"horizontal overflow at {width} px: {scroll} > {inner}"
        box = page.locator("#verdict").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, "the verdict is on the first screen"
        wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => e.getBoundingClientRect().right > innerWidth + 1 && !e.closest('.diagram'))
            .map(e => e.tagName + '.' + e.className)""")
        assert wide == [], wide
        # on a desktop the whole tree fits the page; on a phone it scrolls inside its box
        tree = page.locator("svg#power-tree").bounding_box()
        assert tree is not None and (tree["x"] + tree["width"] <= width) == (width >= 700)
    finally:
        loaded.close()
