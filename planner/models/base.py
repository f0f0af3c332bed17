"""What every catalog entry has (`Part`) and the id pattern: the base of the part kinds (`parts.py`) and of
the workload models (`workloads.py`)."""

from typing import Annotated, Self

from planner.record import Field, Record, model_validator
from planner.units import Price

PositiveInt = Annotated[int, Field(ge=1)]
PartId = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9.]+)*$")]


class Part(Record):
    """Fields every catalog entry has."""

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9.]+)*$", description="Catalog id (the TOML table key).")
    name: str = Field(min_length=1, description="Full product name.")
    maker: str = Field(min_length=1, description="Manufacturer.")
    price: Price | None = Field(default=None, ge=0, le=500_000, description="Street price in USD.")
    price_date: str | None = Field(default=None, description="When the price was seen (YYYY-MM).")
    price_source: str | None = Field(
        default=None, min_length=3,
        description="Where the price comes from (maker's MSRP page, launch news, a review quoting the street price)"
                    " when `source` does not say.")
    source: str = Field(min_length=3, description="Where the figures come from.")
    estimated: list[str] = Field(
        default=[],
        description="Fields whose values are estimates rather than published figures.",
    )
    notes: str | None = Field(default=None, description="Anything a builder should know.")
    aliases: list[PartId] = Field(
        default=[],
        description="Other ids that resolve to this entry wherever an id is accepted (a shorter or a promised"
                    " one); unique within the kind and never another entry's id.")

    @model_validator(mode="after")
    def _aliases_distinct(self) -> Self:
        if self.id in self.aliases:
            raise ValueError(f"aliases: {self.id!r} is the entry's own id")
        if len(set(self.aliases)) != len(self.aliases):
            raise ValueError("aliases: the same alias is listed twice")
        return self
