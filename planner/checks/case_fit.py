"""Which cases take a build's parts: the arithmetic the case checks share with every check whose fixes swap the
case (cpu, slot, riser, thermal, the slot fixes)."""

from __future__ import annotations

from planner.checks.engine.context import Context
from planner.models.parts import Case
from planner.physics import params

#: Board sizes of the ATX family that share mounting holes, smallest first; a case that takes a size
#: also takes every smaller one. E-ATX and EEB (12" × 13") are the same size for this purpose; CEB is
#: 12" × 10.5". XL-ATX is wider rather than longer, so it only implies ATX and smaller.
_ATX_FAMILY = {"mini-itx": 0, "micro-atx": 1, "atx": 2, "ceb": 3, "e-atx": 4, "eeb": 4, "xl-atx": 2}
#: Names that mean the same board size.
_SAME_SIZE = {"ssi-eeb": "eeb", "ssi-ceb": "ceb"}


def takes_board(case: Case, form_factor: str) -> bool:
    """Does the case mount a board of this form factor? A case listing a larger ATX-family size also
    takes the smaller ones (an EEB case takes CEB, ATX, micro-ATX and mini-ITX boards)."""
    wanted = _SAME_SIZE.get(form_factor, form_factor)
    listed = {_SAME_SIZE.get(f, f) for f in case.form_factors}
    if wanted in listed:
        return True
    if wanted == "xl-atx":
        return False
    rank = _ATX_FAMILY[wanted]
    return any(_ATX_FAMILY[f] >= rank for f in listed)


def cases_for(ctx: Context) -> list[Case]:
    """Curated catalog cases, other than the build's, that take its board and its longest card (with
    spare length), cheapest first."""
    build = ctx.build
    longest = max((g.board.length for g in build.gpus), default=0.0)
    cases = [c for c in ctx.catalog.all("case", curated=True)
             if isinstance(c, Case) and c.id != build.case.id and takes_board(c, build.motherboard.form_factor)
             and c.max_gpu_length >= longest + params.GPU_LENGTH_SPARE.value]
    return sorted(cases, key=lambda c: (c.price is None, c.price or 0.0, c.id))
