"""What every catalog entry has (`Part`) and the id pattern: the base of the part kinds (`parts.py`) and of
the workload models (`workloads.py`)."""

from typing import Annotated, Literal, Self

from planner.util.record import Field, Record, model_validator
from planner.util.units import Price

#: A price date: YYYY-MM or YYYY-MM-DD.
DATE_PATTERN = r"^(19|20)\d\d-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$"

PartId = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9.]+)*$")]


class Part(Record):
    """Fields every catalog entry has."""

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9.]+)*$", description="Catalog id (the TOML table key).")
    name: str = Field(min_length=1, description="Full product name.")
    maker: str = Field(min_length=1, description="Manufacturer.")
    price: Price | None = Field(default=None, ge=0, le=500_000,
                                description="New (street) price in USD; absent for a part no longer sold new.")
    price_date: str | None = Field(default=None, pattern=DATE_PATTERN,
                                   description="When its source gives the price (YYYY-MM or YYYY-MM-DD).")
    price_source: str | None = Field(
        default=None, min_length=3,
        description="Where the price comes from: a page a reader can open (retailer listing, price tracker, the"
                    " maker's price), with its date; an estimated price (listed in `estimated`) says why and from"
                    " what.")
    used_price: Price | None = Field(
        default=None, ge=0, le=500_000,
        description="Used price in USD: the median of recent sold listings (parts commonly bought used).")
    used_price_low: Price | None = Field(default=None, ge=0, le=500_000,
                                         description="Low end of the sold listings the used price is the median of.")
    used_price_high: Price | None = Field(default=None, ge=0, le=500_000,
                                          description="High end of the sold listings the used price is the median of.")
    used_price_date: str | None = Field(default=None, pattern=DATE_PATTERN,
                                        description="When the sold listings were seen (YYYY-MM or YYYY-MM-DD).")
    used_price_source: str | None = Field(
        default=None, min_length=3, description="Where the used price comes from (sold-listing summary, tracker).")
    discontinued: bool = Field(
        default=False, description="No longer sold new: priced used only (`used_price`).")
    price_market: Literal["new", "used", "yours"] | None = Field(
        default=None,
        description="Which price `price` holds once a market is chosen (set by the catalog, never in a file).")
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

    @model_validator(mode="after")
    def _used_range(self) -> Self:
        low, mid, high = self.used_price_low, self.used_price, self.used_price_high
        if (low is not None or high is not None) and mid is None:
            raise ValueError("used_price_low/used_price_high: give the used price (the median) too")
        if mid is not None and ((low is not None and low > mid) or (high is not None and high < mid)):
            raise ValueError(f"used_price: the median {mid:g} must lie within used_price_low–used_price_high")
        return self
