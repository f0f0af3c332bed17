"""Numbers as users read them in messages: `1,400 W`, `313 mm`, `87 %`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache


def num(value: float, digits: int = 0) -> str:
    if digits == 0:  # the common call: a constant format spec (messages format a hundred numbers a build)
        return f"{value:,.0f}"
    text = f"{value:,.{digits}f}"
    return text.removesuffix(".0") if digits == 1 else text


def watts(value: float) -> str:
    return f"{value:,.0f} W"  # num(value), inlined


def mm(value: float) -> str:
    return f"{value:,.0f} mm"  # num(value), inlined


def percent(fraction: float) -> str:
    return f"{fraction * 100:.0f} %"


def usd(value: float) -> str:
    return f"${num(value)}"


def price_text(part: object) -> str:
    """`, $1,499` after a part's id in a fix, or nothing when the catalog has no price."""
    price = getattr(part, "price", None)
    return f", {usd(price)}" if price is not None else ""


def gpu_labels(indices: Iterable[int]) -> str:
    """'GPU1–4', 'GPU1, GPU3', 'GPU1, GPU2': 1-based card numbers as messages show them."""
    numbers = sorted(i + 1 for i in indices)
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"GPU{numbers[0]}–{numbers[-1]}"
    return ", ".join(f"GPU{n}" for n in numbers)


def names(items: Iterable[str]) -> str:
    """'GPU1', 'GPU1 and GPU2', 'GPU1, GPU2 and GPU3'."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"



#: Characters that must not reach a terminal or an export raw: C0 controls, DEL, C1 controls (U+0085 NEL and
#: U+009B CSI among them), the Unicode line and paragraph separators, and every bidi control that reorders what
#: a reader sees: the embeddings, overrides and isolates (U+202A–202E, U+2066–2069; "Trojan Source",
#: CVE-2021-42574) and the marks (U+061C, U+200E, U+200F): Unicode's whole Bidi_Control set. And the lone
#: surrogates (U+D800–DFFF): Python carries each byte of a file name or argument that is not UTF-8 as one
#: (U+DC80–DCFF), and printed as it is it is that raw byte again (0x9B is a CSI to a terminal that reads
#: 8-bit controls).
#: An ESC in a build or part name could retitle the terminal (`ESC ] 0 ; … BEL`) or conceal the rest of
#: the line, "— FAIL" included (`ESC [ 8 m`).
UNSAFE_CHARS = "\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"


# Compiled on first use (each of these classes costs ~0.3 ms to compile, more than a typical report spends in
# them): most text is printable and never needs them.
@cache
def _unsafe(newlines: bool) -> re.Pattern[str]:
    return re.compile(f"[{UNSAFE_CHARS}]" if newlines else f"[\n{UNSAFE_CHARS}]")  # a block keeps its newlines


def _escape(match: re.Match[str]) -> str:
    return repr(match.group())[1:-1]  # \x1b, \r, \n, \x85, \u202e: visible, and what the file holds


def printable(text: str, *, newlines: bool = False) -> str:
    """`text` safe to print or export: each control or bidi character above written as its escape (`\x1b`,
    `\u202e`), so it shows instead of acting. A name is one line (its newlines are escaped too); a block
    of lines made by the planner keeps them with `newlines=True`. Every face applies it where it renders
    a user's string (build, part and circuit names, file names, messages that quote them)."""
    if text.isprintable():  # every character above is unprintable (Cc, Zl, Zp or Cf)
        return text
    pattern = _unsafe(newlines)
    return pattern.sub(_escape, text) if pattern.search(text) else text


@cache
def _unsafe_in_json() -> re.Pattern[str]:
    # json.dumps escapes C0; a lone surrogate (a non-UTF-8 file name's byte) would be written raw
    return re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_printable(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with the unsafe characters that JSON allows
    raw written as `\\uXXXX` escapes: the same data when parsed, inert on a terminal."""
    if text.isascii() and "\x7f" not in text:  # the only ASCII one
        return text
    return _unsafe_in_json().sub(lambda match: f"\\u{ord(match.group()):04x}", text)
