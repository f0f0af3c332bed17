"""The TUI fuzz harness (issue 26): seeded sessions of `planner tui` under Textual's Pilot, each on a build file
(a real example, or a hostile one: values of the wrong shape, missing tables, unknown parts, an empty file, a
mutated example), driven by a storm of actions — every bound key (the screens' and the panels'), letters, digits,
tab, enter, escape, ctrl+p, ctrl+z and ctrl+y, hostile pastes into every input, opening another hostile file, and
resizes down to 10×4.

A session passes when the app never raises (a traceback, a failed worker) and never stops answering (each
session is bounded in time). tests/tui/test_tui_fuzz.py runs a few sessions in CI; tools/tui_fuzz.py runs many with
a given seed and reports the counts. Session `i` of seed `s` draws from random.Random(f"{s}:{i}"), so one
failing session replays alone (`tools/tui_fuzz.py --seed s --first i --sessions 1`).

Run it in a scratch directory: the save and export dialogs write the names typed into them there (no typed or
pasted text holds a `/` or a `~`, so nothing is written anywhere else).
"""

from __future__ import annotations

import asyncio
import random
import time
import traceback
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.widgets import Input

from planner.catalog import Catalog
from tui.app import PlannerApp, make_app
from tui.screens.complete import CompleteBuild
from tui.screens.dialogs import AskPath, Confirm, InvalidBuild, QuitDialog, ShowError
from tui.screens.picker import CatalogPicker
from tui.screens.tuner import Tuner
from tui.screens.wizard import Wizard
from tui.widgets.findings import FindingsPanel
from tui.widgets.parts import PartsList

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = [*sorted((ROOT / "examples" / "builds").glob("*.toml")), ROOT / "tests" / "data" / "tui-build.toml"]

SCREENS = (PlannerApp, Tuner, Wizard, CatalogPicker, CompleteBuild, AskPath, Confirm, QuitDialog, ShowError,
           InvalidBuild)
PANELS = (PartsList, FindingsPanel)  # the keys that act on the focused panel only


def _bound_keys() -> list[str]:
    """Every key a screen or a panel of the app binds (the bindings as they are, not a copy of them)."""
    keys = set()
    for screen in (*SCREENS, *PANELS):
        for binding in screen.BINDINGS:
            assert isinstance(binding, Binding)
            keys.update(key.strip() for key in binding.key.split(","))
    return sorted(keys)


BOUND_KEYS = _bound_keys()
#: Keys a user presses anywhere: moving, typing, and the app's and Textual's own.
OTHER_KEYS = [*"abcdefghijklmnopqrstuvwxyz0123456789", "tab", "shift+tab", "enter", "escape", "ctrl+p", "ctrl+z",
              "ctrl+y", "ctrl+r", "space", "backspace", "up", "down", "left", "right", "home", "end", "pageup",
              "pagedown", "full_stop", "minus", "plus", "greater_than_sign", "less_than_sign", "equals_sign"]
#: Keys that end the session (drawn rarely, so a session usually lasts its course).
ENDING = {"q", "ctrl+q", "ctrl+c"}
#: What is pasted into inputs: control characters, escape sequences, bidi overrides, numbers no field takes,
#: markup, and long text. None holds `/` or starts with `~`: a pasted file name stays in the scratch directory.
PASTES = ["\x00\x01\x02\x07\x08", "\x1b", "\x1b[2J\x1b[31mred", "\x1b]0;title\x07", "\x1b]8;;http:x\x07link",
          "\u202egnp.exe", "\u2066x\u2069", "\u2028\u2029", "\u0085\u009b31m", "\x7f", "\t", "a\nb\nc", "\r=cmd",
          "1e999", "-1e999", "9" * 400, "9" * 5000, "NaN", "nan", "inf", "-inf", "-1", "0", "-0", "1e-999",
          "0x10", "1_000", "16", "17", "100000", "100001", "4000", "3k", "$4,000", "48 GiB", "42.9 GB", "1e308",
          "memory>=1e999", "slots<=-1", "watts>=9" + "9" * 400, "price=nan", "[bold]x[/bold]", "[link=x]y[/link]",
          "[/]", "[", "]", "\\", "%s%n", "{0}", "$(echo)", "`x`", "名前🔥", "\u200b\u200d", "x" * 1000,
          "y" * 100_000, "build.toml", "parts.md", "limits.sh", "x.service", "a.toml", ".", "..", ""]
GPU = '[[gpu]]\npart = "nvidia-rtx-3090-fe"\n'
#: Build files whose values have the wrong shape, or whose parts or tables are missing or unknown.
HOSTILE_FILES = {
    "gpu-int": "gpu = 1\n", "gpu-list-int": "gpu = [1]\n", "gpu-string": 'gpu = "x"\n',
    "count-word": GPU + 'count = "two"\n', "count-huge": GPU + "count = 99999999999999999999\n",
    "count-zero": GPU + "count = 0\n", "count-float": GPU + "count = 2.5\n", "count-list": GPU + "count = [2]\n",
    "limit-list": GPU + "power_limit = []\n", "limit-nan": GPU + "power_limit = nan\n",
    "limit-words": GPU + 'power_limit = "lots"\n', "part-int": "[[gpu]]\npart = 7\n", "part-missing": "[[gpu]]\n",
    "part-unknown": '[[gpu]]\npart = "no-such-part"\n', "part-table": "[[gpu]]\npart = { base = 1 }\n",
    "empty": "", "comment": "# nothing here\n", "name-only": 'name = "x"\n', "unknown-key": 'colour = "black"\n',
    "case-int": "case = 1\n", "case-table": "[case]\nx = 1\n", "board-list": "motherboard = [2]\n",
    "cpu-empty": "cpu = {}\n", "psu-int": "psu = 3\n", "psu-inline": "psu = [{ part = 1 }]\n",
    "psu-empty": "psu = []\n", "circuit-string": 'circuit = "x"\n', "circuit-nameless": "[[circuit]]\n",
    "circuit-unknown": '[[circuit]]\nname = "w"\noutlet = "no-such-outlet"\n',
    "psu-on-nothing": '[[psu]]\npart = "corsair-ax1600i"\ncircuit = "nowhere"\n',
    "workload-int": "workload = 5\n" + GPU, "workload-unknown": 'workload = "mining"\n' + GPU,
    "name-table": "[name]\nx = 1\n", "name-hostile": 'name = "\\u001b[2J\\u202e[bold]x"\n' + GPU,
    "deep": "x = " + "[" * 40 + "]" * 40 + "\n", "huge-int": "ambient = 1" + "0" * 400 + "\n",
    "not-toml": "case = = 3\n", "not-utf8": "name = \"\udcff\"\n", "nul": 'name = "a"\x00\n',
}
#: Values put in place of one value of a real build.
HOSTILE_VALUES = ["1", "[1]", '"x"', '"two"', "[]", "{}", "nan", "inf", "-1", "0", "1e308", "9" * 30, '""',
                  '"no-such-part"', "true", "1979-05-27", '"\\u001b[2J"', '"\\u202e"', "{ base = 1 }"]

#: Terminal sizes a resize draws: the smallest first, as the crash under a storm came at 12×4.
SIZES = [(10, 4), (12, 4), (11, 5), (16, 6), (20, 8), (40, 12), (80, 24), (100, 34), (120, 40), (200, 60)]


@dataclass
class Counts:
    """What the sessions did and what went wrong."""

    sessions: int = 0
    actions: int = 0
    keys: int = 0
    pastes: int = 0
    resizes: int = 0
    opened: int = 0  # files opened with ctrl+o
    ended: int = 0  # sessions the keys themselves ended (q, ctrl+q)
    seconds: float = 0.0
    files: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # one line per failed session, with its replay seed
    tracebacks: list[str] = field(default_factory=list)
    hangs: int = 0

    def add(self, other: Counts) -> None:
        for name in ("sessions", "actions", "keys", "pastes", "resizes", "opened", "ended", "seconds", "hangs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for kind, n in other.files.items():
            self.files[kind] = self.files.get(kind, 0) + n
        self.failures += other.failures
        self.tracebacks += other.tracebacks

    def summary(self) -> str:
        return (f"{self.sessions} sessions, {self.actions} actions ({self.keys} keys, {self.pastes} pastes, "
                f"{self.resizes} resizes, {self.opened} files opened), {len(self.tracebacks)} tracebacks, "
                f"{self.hangs} hangs, {self.ended} ended by their own keys, {self.seconds:.0f} s")


def build_file(rng: random.Random) -> tuple[str, bytes]:
    """A build file to open: its kind and its bytes."""
    roll = rng.random()
    if roll < 0.45:
        kind = rng.choice(sorted(HOSTILE_FILES))
        return kind, HOSTILE_FILES[kind].encode("utf-8", "surrogateescape")
    example = rng.choice(EXAMPLES)
    text = example.read_text()
    if roll < 0.75:
        return "example", text.encode()
    lines = text.splitlines()
    values = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
    for _ in range(rng.randint(1, 3)):  # one to three values of a real build replaced
        i = rng.choice(values)
        key = lines[i].split("=", 1)[0]
        lines[i] = f"{key}= {rng.choice(HOSTILE_VALUES)}"
    if rng.random() < 0.3:  # and a table left out
        headers = [i for i, line in enumerate(lines) if line.startswith("[")]
        if headers:
            del lines[rng.choice(headers)]
    return "mutated", ("\n".join(lines) + "\n").encode()


def _key(rng: random.Random) -> str:
    while True:
        key = rng.choice(BOUND_KEYS) if rng.random() < 0.5 else rng.choice(OTHER_KEYS)
        if key not in ENDING or rng.random() < 0.02:
            return key


async def session(seed: str, catalog: Catalog, workdir: Path, steps: int, counts: Counts) -> None:
    """One session: a build file opened, then `steps` actions. Raises what the app raised."""
    rng = random.Random(seed)
    kind, data = build_file(rng)
    counts.files[kind] = counts.files.get(kind, 0) + 1
    path = workdir / f"build-{rng.randrange(4)}.toml"
    path.write_bytes(data)
    others = []
    for n in range(2):  # files ctrl+o can open, by a short name typed in the scratch directory
        _, other = build_file(rng)
        (workdir / f"o{n}.toml").write_bytes(other)
        others.append(f"o{n}.toml")
    app = make_app(path, catalog)
    async with app.run_test(size=rng.choice(SIZES[5:])) as pilot:
        for _ in range(steps):
            if not app.is_running:
                counts.ended += 1
                break
            counts.actions += 1
            roll = rng.random()
            if roll < 0.70:
                keys = [_key(rng) for _ in range(rng.choice([1, 1, 1, 2, 3, 5]))]
                counts.keys += len(keys)
                await _press(app, pilot, keys, rng)
            elif roll < 0.80:
                await _paste(app, pilot, rng)
                counts.pastes += 1
            elif roll < 0.88:
                await pilot.resize_terminal(*rng.choice(SIZES))
                counts.resizes += 1
            elif roll < 0.95:  # the palette, typed into, squeezed and closed while it searches
                keys = ["ctrl+p", *rng.choices("abcdefghijklmnopqrstuvwxyz ", k=rng.randint(0, 6))]
                counts.keys += len(keys)
                await _press(app, pilot, keys, rng)
                if rng.random() < 0.5:
                    await pilot.resize_terminal(*rng.choice(SIZES[:3]))
                    counts.resizes += 1
                counts.keys += 1
                await _press(app, pilot, [rng.choice(["escape", "enter", "backspace", "down", "ctrl+p"])], rng)
            else:  # ctrl+o and the name of another file (a hostile one, mostly)
                counts.opened += 1
                counts.keys += 1
                await _press(app, pilot, ["ctrl+o"], rng)
                if isinstance(app.screen, Confirm):  # unsaved changes: discard them
                    counts.keys += 1
                    await _press(app, pilot, ["y"], rng)
                if isinstance(app.screen, AskPath):
                    keys = [*rng.choice(others), "enter"]
                    counts.keys += len(keys)
                    await _press(app, pilot, keys, rng)
            if rng.random() < 0.1:
                await pilot.pause()
        await pilot.pause()


async def _press(app: PlannerApp, pilot: Pilot[None], keys: list[str], rng: random.Random) -> None:
    """The keys as a user types them (each handled before the next: Pilot's press) or as a storm."""
    if rng.random() < 0.15:
        await pilot.press(*keys)
    else:
        await storm(app, pilot, keys, rng)


async def storm(app: PlannerApp, pilot: Pilot[None], keys: list[str], rng: random.Random | None = None) -> None:
    """The keys sent at once, each handled when the app gets to it, as when a key is held down or a terminal
    sends a burst (Pilot's press waits for each to be handled); `rng` lets the app run between some of them."""
    driver = app._driver
    assert driver is not None
    for key in keys:  # as Pilot's press sends them (textual/app.py _press_keys), without waiting for each
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        driver.send_message(event)
        if rng is not None and rng.random() < 0.5:
            await asyncio.sleep(0)
    await pilot._wait_for_screen()


async def _paste(app: PlannerApp, pilot: Pilot[None], rng: random.Random) -> None:
    """Hostile text pasted into one of the screen's inputs (or whatever has the focus, if none)."""
    text = rng.choice(PASTES)
    if rng.random() < 0.3:
        text = "".join(rng.choice(PASTES)[:50] for _ in range(rng.randint(2, 4)))
    inputs = [widget for widget in app.screen.query(Input) if widget.display]
    if inputs:
        field = rng.choice(inputs)
        field.focus()
        if rng.random() < 0.5:
            field.value = ""
    app.post_message(events.Paste(text))
    await pilot._wait_for_screen()
    if rng.random() < 0.5:  # and submitted (the wizard ranks, a path dialog saves or opens)
        await _press(app, pilot, [rng.choice(["enter", "ctrl+r", "tab", "escape"])], rng)


async def fuzz(seed: int | str, sessions: int, catalog: Catalog, workdir: Path, *, first: int = 0, steps: int = 40,
               timeout: float = 120.0, progress: bool = False, minutes: float | None = None) -> Counts:
    """`sessions` sessions of `seed` (from session `first`), each in its own scratch directory under `workdir`;
    with `minutes`, no session starts after that long."""
    counts = Counts()
    stop = time.monotonic() + minutes * 60 if minutes is not None else None
    for index in range(first, first + sessions):
        if stop is not None and time.monotonic() > stop:
            break
        one = Counts()
        name = f"{seed}:{index}"
        folder = workdir / f"s{index}"
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        try:
            await asyncio.wait_for(session(name, catalog, folder, steps, one), timeout)
        except TimeoutError:
            one.hangs += 1
            one.failures.append(f"session {name}: no answer within {timeout:g} s")
        except Exception as error:  # what the app raised: the failure this harness looks for
            one.tracebacks.append("".join(traceback.format_exception(error)))
            one.failures.append(f"session {name}: {type(error).__name__}: {str(error)[:200]}")
        one.sessions += 1
        one.seconds = time.perf_counter() - started
        counts.add(one)
        if progress and one.failures:
            print("\n".join(one.failures), flush=True)
        if progress and (index - first + 1) % 25 == 0:
            print(f"[{index - first + 1}/{sessions}] {counts.summary()}", flush=True)
    return counts
