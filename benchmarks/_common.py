"""What the benchmark scripts share: the repository's root, the 90th percentile and
durations as the figures print them, and the folder of real game records.

The scripts run as ``python benchmarks/NAME.py`` (or ``benchmarks/investigations/NAME.py``,
which put ``benchmarks/`` on ``sys.path``), so this module is imported as ``_common``.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

#: the repository's root folder
ROOT = Path(__file__).resolve().parents[1]


def p90(xs: Sequence[float]) -> float:
    """The 90th percentile of ``xs`` as the figures give it: the value at rank
    ⌊0.9·n⌋ of the sorted values (the largest when n < 10). Raises IndexError when empty."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.9 * len(xs)))]


def fmt_us(us: float) -> str:
    """A duration given in microseconds, as the tables print it: ``"41 µs"`` below a
    millisecond, ``"3.25 ms"`` from there."""
    return f"{us:,.0f} µs" if us < 1000 else f"{us / 1000:,.2f} ms"


def cases_folder() -> Path:
    """The real game records the tests replay: ``$HEURI_CASES`` when set (a folder of
    ``<lang>/NNN.gcg`` and its ``MANIFEST.tsv``), else the fourteen of ``tests/data/gcg``."""
    sys.path.insert(0, str(ROOT / "tests"))
    from shared_cases import ALL_CASES

    return ALL_CASES
