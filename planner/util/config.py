"""The user's settings file: defaults a builder sets once (the region of their wall outlets, the market they buy
in).

`~/.config/gpu-rig-planner/util/config.toml` on Linux (platformdirs; `PLANNER_CONFIG` overrides the path):

    region = "eu"        # the outlet assumed when a build names no [[circuit]]: us, eu, uk, jp, cn, au
    market = "used"      # which price parts get when no --market is given: new, used, any (default any)

Read only when a default is needed: a region when a build names no circuit, a market when a command that prices
parts is given no --market.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any, Literal

from planner.util.errors import InputError

ENV = "PLANNER_CONFIG"
REGIONS = ("us", "eu", "uk", "jp", "cn", "au")
MARKETS = ("new", "used", "any")  # planner/catalog/prices.py: MARKETS
SETTINGS = ("region", "market")


def config_path() -> Path:
    env = os.environ.get(ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_config_dir("gpu-rig-planner")) / "config.toml"


@cache
def _read(path: Path) -> dict[str, Any]:
    from planner.util import tomlfile

    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return {}  # no settings file: the defaults
    except OSError:
        pass  # unreadable: read_text says why
    data = tomlfile.loads(tomlfile.read_text(path, what="a TOML settings file"), str(path))
    unknown = sorted(set(data) - set(SETTINGS))
    if unknown:
        raise InputError(f"unknown setting {unknown[0]!r}; the settings file knows: {', '.join(SETTINGS)}",
                         file=str(path))
    return data


def default_region() -> str | None:
    """The region the user configured, if any; InputError naming the file when it is not a region."""
    path = config_path()
    region = _read(path).get("region")
    if region is not None and region not in REGIONS:
        raise InputError(f"region must be one of {', '.join(REGIONS)}, got {region!r}", file=str(path), key="region")
    return region


def default_market() -> Literal["new", "used", "any"] | None:
    """The market the user configured, if any; InputError naming the file when it is not a market."""
    path = config_path()
    market = _read(path).get("market")
    if market is None:
        return None
    if market == "new" or market == "used" or market == "any":
        return market
    raise InputError(f"market must be one of {', '.join(MARKETS)}, got {market!r}", file=str(path), key="market")
