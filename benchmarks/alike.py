"""Time `planner check` of sixteen cards of one model listed as sixteen [[gpu]] tables against the same cards as one
table with `count = 16` (issue 26: the tables took 22× the CPU before cards of one part were grouped however the
file lists them), in-process, the catalogs read once.

    python benchmarks/alike.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.api import check_file  # noqa: E402
from planner.catalog import Catalog  # noqa: E402

BUILDS = {"count = 16": ROOT / "tests" / "data" / "alike" / "sixteen-by-count.toml",
          "sixteen [[gpu]] tables": ROOT / "tests" / "data" / "alike" / "sixteen-by-tables.toml"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    catalog = Catalog()
    check_file(BUILDS["count = 16"], catalog)  # warm: catalogs read and validated once
    medians = {}
    for title, path in BUILDS.items():
        times = []
        for _ in range(args.runs):
            start = time.process_time()
            check_file(path, catalog)
            times.append(time.process_time() - start)
        medians[title] = statistics.median(times)
        print(f"{title:24} CPU median {medians[title] * 1000:7.1f} ms  worst {max(times) * 1000:7.1f} ms")
    ratio = medians["sixteen [[gpu]] tables"] / medians["count = 16"]
    print(f"tables ÷ count: {ratio:.2f} (issue 26: within 2×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
