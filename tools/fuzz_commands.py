"""Fuzz every command of the CLI with hostile inputs (issue 26): build files, price files, settings files and user
catalog files mutated from the real examples with the hostile values of tests/fuzzing.py, each run in-process
through `planner.cli.main.main` with a time bound.

    python tools/fuzz_commands.py [--inputs N] [--seed S] [--timeout SECONDS]

An input is one generated file and one command that reads it. A failure is a traceback (an exception out of the CLI, or
its "internal error" line), an exit code other than 0, 1 or 2, a run past the time bound (a hang), or a raw control
character on stdout or stderr. Prints the seed, the counts per command and every failure's reproducer (seed and input
number); exit 1 when there was any failure. tests/properties/test_fuzz_commands.py runs a small number in CI."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from planner.cli.main import main as planner_main  # noqa: E402
from planner.util.fmt import UNSAFE_CHARS  # noqa: E402

from fuzzing import HUGE_NUMBERS, IDS, ODD_STRINGS, UNIT_STRINGS, WRONG_TYPES  # type: ignore[import-not-found]  # noqa: E402

UNSAFE = re.compile(f"[{UNSAFE_CHARS}]")

EXAMPLES = sorted((ROOT / "examples" / "builds").glob("*.toml"))
LABS = sorted((ROOT / "examples" / "labs").glob("*.toml"))
SMALL = ROOT / "tests" / "data" / "solve" / "small"
PRICES = ROOT / "tests" / "data" / "solve" / "test-prices.toml"
VALUES = [*HUGE_NUMBERS, *ODD_STRINGS, *UNIT_STRINGS, *WRONG_TYPES, *IDS]
#: Values a file may well hold: some mutations keep the file valid, so the later stages (resolve, the checks,
#: the renderers) see hostile names and odd but legal figures, not only the validator.
PLAUSIBLE = ["1", "2", "4", "8", "16", '"300 W"', '"250 W"', "true", "false", '"2026-11"', "350", "0.5",
             '"name with \u001b[2J and \u202e"', '"<img src=x onerror=alert(1)>"', '"$(touch pwned)"', '"=cmd"',
             '"[url]x[/url]"', '"line\nbreak"', '"%s%n"']


class Hang(Exception):
    pass


def mutate(rng: random.Random, text: str) -> str:
    """A real file with a few of its lines changed: a value replaced by a hostile one, a line deleted or repeated,
    a table header doubled, or bytes cut off."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        action = rng.random()
        if action < 0.55 and "=" in lines[i]:
            key = lines[i].split("=", 1)[0]
            lines[i] = f"{key}= {rng.choice(PLAUSIBLE if rng.random() < 0.5 else VALUES)}"
        elif action < 0.7:
            del lines[i]
        elif action < 0.85:
            lines.insert(i, lines[i])
        elif action < 0.95:
            headers = ["[[gpu]]", "[[psu]]", "[[circuit]]", "[extras]", "[gpu]", "[[gpu]]\ncount = 9"]
            lines.insert(i, rng.choice(headers))
        else:
            cut = rng.randrange(max(len("\n".join(lines)), 1))
            return "\n".join(lines)[:cut]
    return "\n".join(lines) + ("\n" if rng.random() < 0.9 else "")


def _price_file(rng: random.Random) -> str:
    part = rng.choice(["nvidia-rtx-3090-fe", "corsair-ax1600i", "asus-pro-ws-wrx80e-sage-se", "no-such-part"])
    price = rng.choice(["800", "333.333", "1200"]) if rng.random() < 0.6 else rng.choice(VALUES)
    date = rng.choice(['"2026-11"', '"2025-01-15"']) if rng.random() < 0.6 else rng.choice(VALUES)
    note = rng.choice([v for v in PLAUSIBLE if v.startswith('"')])
    return f'[prices]\n"{part}" = {{ price = {price}, date = {date}, note = {note} }}\n'


def _settings_file(rng: random.Random) -> str:
    key = rng.choice(["region", "market", "psu_target", "catalog", "prices", "colour", "default_format"])
    return f"{key} = {rng.choice(VALUES)}\n"


def _catalog_file(rng: random.Random) -> tuple[str, str]:
    kind = rng.choice(["gpus", "psus", "cases", "motherboards", "cpus", "risers", "outlets", "gpu-chips"])
    source = (ROOT / "catalogs" / f"{kind}.toml").read_text(encoding="utf-8")
    entries = source.split("\n[")
    chosen = "[" + rng.choice(entries[1:]) if len(entries) > 1 else source
    return f"{kind}.toml", mutate(rng, chosen)


Case = tuple[str, Callable[[Path], list[str]], Callable[[random.Random], tuple[str, str]]]


def _build(rng: random.Random) -> tuple[str, str]:
    return "build.toml", mutate(rng, rng.choice(EXAMPLES).read_text(encoding="utf-8"))


def _lab(rng: random.Random) -> tuple[str, str]:
    """A real lab file, mutated; it is written as `labs/lab.toml` beside copies of the build files the example
    labs name (`_lab_tree`: a lab names its machines' files relative to itself)."""
    return "labs/lab.toml", mutate(rng, rng.choice(LABS).read_text(encoding="utf-8"))


def _lab_tree(folder: Path) -> None:
    """The build files the example labs name, where they name them: ../builds/ and builds/ beside the lab."""
    for source, target in ((ROOT / "examples" / "builds", folder / "builds"),
                           (ROOT / "examples" / "labs" / "builds", folder / "labs" / "builds")):
        target.mkdir(parents=True, exist_ok=True)
        for build in source.glob("*.toml"):
            shutil.copyfile(build, target / build.name)


def cases() -> list[Case]:
    """(command label, argv for the generated file, generator of (file name, text))."""
    example = str(EXAMPLES[0])
    return [
        ("check", lambda f: ["check", str(f)], _build),
        ("check --format json", lambda f: ["check", str(f), "--format", "json"], _build),
        ("place", lambda f: ["place", str(f)], _build),
        ("optimize", lambda f: ["optimize", str(f), "-o", str(f.with_name("out.toml")), "--force"], _build),
        ("export md", lambda f: ["export", str(f), "--format", "md"], _build),
        ("export bbcode", lambda f: ["export", str(f), "--format", "bbcode"], _build),
        ("export csv", lambda f: ["export", str(f), "--format", "csv"], _build),
        ("export json", lambda f: ["export", str(f), "--format", "json"], _build),
        ("export nvidia-smi", lambda f: ["export", str(f), "--format", "nvidia-smi"], _build),
        ("export systemd", lambda f: ["export", str(f), "--format", "systemd"], _build),
        ("diff", lambda f: ["diff", example, str(f)], _build),
        ("solve", lambda f: ["solve", str(f), "--no-builtin", "--catalog", str(SMALL), "--prices", str(PRICES)],
         _build),
        ("check --prices", lambda f: ["check", example, "--prices", str(f)], lambda r: ("prices.toml", _price_file(r))),
        ("catalog validate", lambda f: ["catalog", "validate", str(f.parent)], _catalog_file),
        ("check --catalog", lambda f: ["check", example, "--catalog", str(f.parent)], _catalog_file),
        ("lab", lambda f: ["lab", str(f)], _lab),
        ("lab --format json", lambda f: ["lab", str(f), "--format", "json"], _lab),
        ("lab --format html", lambda f: ["lab", str(f), "--format", "html", "-o", str(f.with_name("lab.html")),
                               "--force"], _lab),
    ]


def run_one(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int | str, str, str, float]:
    """Exit code (or 'traceback: …' / 'hang'), stdout, stderr and seconds of one in-process run."""
    out, err = io.StringIO(), io.StringIO()
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)

    def expire(signum: int, frame: object) -> None:
        raise Hang

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code: int | str = planner_main(argv)
    except Hang:
        code = "hang"
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 2
    except BaseException as error:  # a traceback is what the harness looks for
        code = f"traceback: {type(error).__name__}: {error}"[:300]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return code, out.getvalue(), err.getvalue(), time.perf_counter() - start


def problems(code: int | str, out: str, err: str) -> list[str]:
    found = []
    if isinstance(code, str):
        found.append(code)
    elif code not in (0, 1, 2):
        found.append(f"exit code {code}")
    if "internal error" in err or "Traceback (most recent call last)" in err:
        found.append("internal error: " + err.strip().splitlines()[-1][:200])
    raw = sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(out + err) if c not in "\n\t"})
    if raw:
        found.append(f"raw control characters on the terminal: {', '.join(raw[:5])}")
    return found


def fuzz(inputs: int, seed: int, timeout: float, directory: Path) -> Iterator[
        tuple[int, str, list[str], float, int | str]]:
    """(input number, command, problems, seconds, exit code) for each input."""
    rng = random.Random(seed)
    table = cases()
    settings_every = 10  # one input in ten also runs under a hostile settings file
    for number in range(inputs):
        label, argv_of, make = table[number % len(table)]
        folder = directory / f"in{number % 50}"
        folder.mkdir(exist_ok=True)
        for old in folder.iterdir():
            shutil.rmtree(old) if old.is_dir() else old.unlink()
        name, text = make(rng)
        path = folder / name
        if name.startswith("labs/"):
            _lab_tree(folder)
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        env = {"NO_COLOR": "1"}
        if number % settings_every == settings_every - 1:
            settings = folder / "settings.toml"
            settings.write_text(_settings_file(rng), encoding="utf-8")
            env["PLANNER_CONFIG"] = str(settings)
            label += " (hostile settings)"
        code, out, err, seconds = run_one(argv_of(path), env, timeout)
        yield number, label, problems(code, out, err), seconds, code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds one input may take (default 20)")
    args = parser.parse_args(argv)
    runs: Counter[str] = Counter()
    codes: dict[str, Counter[int | str]] = {}
    failures: list[str] = []
    slowest = (0.0, "")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for number, label, found, seconds, code in fuzz(args.inputs, args.seed, args.timeout, Path(tmp)):
            runs[label.split(" (")[0]] += 1
            codes.setdefault(label.split(" (")[0], Counter())[code if isinstance(code, int) else "other"] += 1
            slowest = max(slowest, (seconds, f"input {number} ({label})"))
            failures.extend(f"seed {args.seed} input {number} ({label}): {p}" for p in found)
            if (number + 1) % 500 == 0:
                print(f"  {number + 1} inputs, {len(failures)} failures, {time.perf_counter() - started:.0f} s",
                      file=sys.stderr)
    print(f"seed {args.seed}: {args.inputs} inputs over {len(runs)} commands in "
          f"{time.perf_counter() - started:.0f} s; slowest {slowest[0]:.2f} s ({slowest[1]})")
    for label, count in sorted(runs.items()):
        exits = ", ".join(f"exit {c}: {n}" for c, n in sorted(codes[label].items(), key=str))
        print(f"  {count:6d}  {label:22} ({exits})")
    print(f"failures (tracebacks, bad exit codes, hangs over {args.timeout:g} s, raw control characters): "
          f"{len(failures)}")
    for line in failures[:50]:
        print("  " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
