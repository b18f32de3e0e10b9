"""Where the real game records live.

``CASES`` is ``tests/data/gcg``: fourteen real records kept in the repository (their
provenance in its README.md), which the tests name one by one, so a clone runs them.
``ALL_CASES`` is the folder the whole-collection tests walk (every row of its
``MANIFEST.tsv``): ``$HEURI_CASES`` when set, else the same bundled folder.
"""
from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CASES = REPO / "tests" / "data" / "gcg"
ALL_CASES = Path(os.environ["HEURI_CASES"]) if os.environ.get("HEURI_CASES") else CASES
BUNDLED = ALL_CASES == CASES

if not (ALL_CASES / "MANIFEST.tsv").is_file():
    raise FileNotFoundError(f"HEURI_CASES={ALL_CASES}: no MANIFEST.tsv there "
                            "(a folder of <lang>/NNN.gcg records and their MANIFEST.tsv)")
