"""Where the real game records live: ``../shared/cases/gcg`` beside the repository (the
project's shared folder, present in CI), or the folder named by ``$HEURI_CASES``.

Tests that replay them skip, saying why, in a clone that has neither.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CASES = Path(os.environ.get("HEURI_CASES", REPO.parent / "shared" / "cases" / "gcg"))
MISSING = f"no game records at {CASES} (set HEURI_CASES to a folder of cases/gcg)"


def require_cases(module_level: bool = False) -> Path:
    """CASES, or skip the test (or the whole module) when the records are not there."""
    if not (CASES / "MANIFEST.tsv").is_file():
        pytest.skip(MISSING, allow_module_level=module_level)
    return CASES
