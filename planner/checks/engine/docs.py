"""docs/verdicts.md's tables, generated from the checks' declarations: each section's table lists its checks in
the order they run, with what makes an error, what makes a warning and on what evidence (`@check(…, section=…,
error=…, warning=…, evidence=…)`). The prose around the tables is the document's own; a table sits between

    <!-- checks: SECTION (generated from the declarations by tools/gen_verdicts.py; edit the checks, not this) -->
    …
    <!-- end of checks: SECTION -->

`tools/gen_verdicts.py` rewrites the tables; a test fails when the document and the declarations differ.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from planner.checks.engine.registry import SECTIONS, Check

_BLOCK = re.compile(r"(<!-- checks: (?P<section>[^(]+?) \(generated[^>]*-->\n)(?P<body>.*?)"
                    r"(<!-- end of checks: (?P=section) -->)", re.S)


def table(checks: Mapping[str, Check], section: str) -> str:
    """The Markdown table of one section's checks."""
    lines = ["| code | error | warning | evidence |", "|---|---|---|---|"]
    lines += [f"| `{c.code}` | {c.error} | {c.warning} | {c.evidence} |"
              for c in checks.values() if c.section == section]
    return "\n".join(lines) + "\n"


def render(document: str, checks: Mapping[str, Check]) -> str:
    """The document with every generated table rewritten from the declarations. Raises ValueError when a section
    has no table block, or a declared check names no section."""
    if undocumented := sorted(c.code for c in checks.values() if c.section is None):
        raise ValueError(f"checks with no section in docs/verdicts.md: {', '.join(undocumented)}")
    found: list[str] = []

    def rewrite(match: re.Match[str]) -> str:
        section = match["section"]
        if section not in SECTIONS:
            raise ValueError(f"docs/verdicts.md has a table for an unknown section {section!r}")
        found.append(section)
        return match.group(1) + table(checks, section) + match.group(4)

    rendered = _BLOCK.sub(rewrite, document)
    if missing := [s for s in SECTIONS if s not in found]:
        raise ValueError(f"docs/verdicts.md has no generated table for {', '.join(missing)}")
    return rendered
