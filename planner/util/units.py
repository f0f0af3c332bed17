"""Physical quantities at the edges: parse "350 W", "13.5 in", "120 cfm", "25 °C" into canonical floats.

Inside the core every quantity is a plain float in its canonical unit (the table below). Strings with
another unit go through pint with the planner's own unit definitions (`units.txt`); the registry is
built once, lazily, because importing pint and building a registry costs more than the whole of a
typical `planner check` run. A number already in the canonical unit never needs pint.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from planner.util.record import Before, JsonSchema

if TYPE_CHECKING:
    import pint

#: kind -> (canonical pint unit, its symbol as shown to users, what the kind is called in messages,
#:          spellings of the canonical unit that need no conversion)
CANONICAL: dict[str, tuple[str, str, str, frozenset[str]]] = {
    "power": ("W", "W", "a power", frozenset({"w", "watt", "watts"})),
    "length": ("mm", "mm", "a length", frozenset({"mm", "millimeter", "millimeters", "millimetre"})),
    "temperature": ("degC", "°C", "a temperature", frozenset({"°c", "degc", "c", "celsius", "℃"})),
    "airflow": ("cfm", "CFM", "an airflow", frozenset({"cfm"})),
    "memory": ("GB", "GB", "a memory size", frozenset({"gb"})),
    "cache": ("MB", "MB", "a cache size", frozenset({"mb"})),
    "bandwidth": ("GB/s", "GB/s", "a bandwidth", frozenset({"gb/s", "gbps"})),
    "throughput": ("TFLOPS", "TFLOPS", "a throughput", frozenset({"tflops", "tops", "tflop/s"})),
    "voltage": ("V", "V", "a voltage", frozenset({"v", "volt", "volts"})),
    "current": ("A", "A", "a current", frozenset({"a", "amp", "amps", "ampere", "amperes"})),
    "price": ("USD", "USD", "a price", frozenset({"usd", "$", "dollars"})),
    "energy": ("Wh", "Wh", "an energy", frozenset({"wh"})),
}

_NUMBER = re.compile(r"^\s*(\$)?\s*([-+]?(?:\d[\d_,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


@cache
def registry() -> pint.UnitRegistry:
    """The one pint registry of the process, built on first use from `units.txt`."""
    import pint  # deferred: ~0.2 s, only needed for units other than the canonical ones

    definitions = str(Path(__file__).with_name("units.txt"))
    ureg: pint.UnitRegistry = pint.UnitRegistry(definitions, autoconvert_offset_to_baseunit=True)
    ureg.formatter.default_format = "~P"
    return ureg


def to_canonical(value: Any, kind: str) -> float:
    """Convert a number (already in the canonical unit) or a string with a unit to the canonical float.

    Raises ValueError with a sentence saying what was expected.
    """
    from planner.util.validation import shown

    unit, symbol, what, plain = CANONICAL[kind]
    expected = f"expected {what} such as '{_EXAMPLES[kind]}' or a number of {symbol}"
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{expected}, got {shown(value)}")
    if not isinstance(value, str):
        try:
            return _finite(float(value), expected)
        except OverflowError:  # an int past ~1.8e308 (the TOML loader refuses them earlier)
            raise ValueError(f"{expected}, got a number too large") from None
    match = _NUMBER.match(value)
    if not match:
        raise ValueError(f"{expected}, got {shown(value)}")
    dollar, number, unit_text = match.groups()
    magnitude = float(number.replace(",", "").replace("_", ""))
    if dollar:
        if kind != "price" or unit_text not in ("", "USD", "usd"):
            raise ValueError(f"{expected}, got {shown(value)}")
        return _finite(magnitude, expected)
    if not unit_text or unit_text.lower() in plain:
        return _finite(magnitude, expected)
    return _finite(_convert(magnitude, unit_text, unit, expected, value), expected)


def _convert(magnitude: float, unit_text: str, unit: str, expected: str, original: str) -> float:
    import pint

    ureg = registry()
    try:
        quantity = ureg.Quantity(magnitude, unit_text)
        return float(quantity.to(unit).magnitude)
    except pint.errors.DimensionalityError:
        raise ValueError(f"{expected}; {unit_text!r} is not a unit of that kind") from None
    except Exception:  # pint's parser raises many kinds (tokenize.TokenError for "0]"); all mean "unknown unit"
        raise ValueError(f"{expected}; unknown unit {unit_text!r} in {original!r}") from None


def _finite(number: float, expected: str) -> float:
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{expected}, got a number that is not finite")
    return number


_EXAMPLES = {
    "power": "350 W", "length": "313 mm", "temperature": "25 °C", "airflow": "120 cfm",
    "memory": "24 GB", "cache": "6 MB", "bandwidth": "936 GB/s", "throughput": "71 TFLOPS",
    "voltage": "120 V", "current": "15 A", "price": "1499 USD", "energy": "1.2 kWh",
}


def _validator(kind: str) -> Callable[[Any], float]:
    def parse(value: Any) -> float:
        return to_canonical(value, kind)

    return parse


def _quantity(kind: str) -> Any:
    _, symbol, what, _ = CANONICAL[kind]
    schema = {
        "anyOf": [{"type": "number"}, {"type": "string"}],
        "description": f"{what.split(' ', 1)[1]}: a number of {symbol}, or a string with a unit "
        f"such as '{_EXAMPLES[kind]}'",
    }
    return Annotated[float, Before(_validator(kind)), JsonSchema(schema)]


Power = _quantity("power")
Length = _quantity("length")
Temperature = _quantity("temperature")
Airflow = _quantity("airflow")
Memory = _quantity("memory")
Cache = _quantity("cache")
Bandwidth = _quantity("bandwidth")
Throughput = _quantity("throughput")
Voltage = _quantity("voltage")
Current = _quantity("current")
Price = _quantity("price")
