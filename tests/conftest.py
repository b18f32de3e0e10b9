"""Shared fixtures: the real packs (built by `snakemake --cores 2 es en fr` before the tests)
and the hand-made tiny pack (built in-process from tests/data/tiny)."""
from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def _load(lang: str):
    from heuri.errors import PackError
    from heuri.pack import load_pack

    try:
        return load_pack(lang)
    except PackError as e:  # the suite needs the real packs: say how to build them
        pytest.fail(f"{e}\n(run `snakemake --cores 2 es en fr` before the tests)", pytrace=False)


@pytest.fixture(scope="session")
def pack_es():
    return _load("es")


@pytest.fixture(scope="session")
def pack_en():
    return _load("en")


@pytest.fixture(scope="session")
def pack_fr():
    return _load("fr")


@pytest.fixture(scope="session", params=["es", "en", "fr"])
def real_pack(request):
    return _load(request.param)


@pytest.fixture(scope="session")
def tiny_pack(tmp_path_factory):
    """The hand-made language in tests/data/tiny, built into a temporary folder."""
    from heuri.pack import load_pack
    from pipeline.build import build_pack

    out = tmp_path_factory.mktemp("tiny") / "tiny"
    build_pack(DATA / "tiny" / "spec.toml", out)
    return load_pack(out)


@pytest.fixture(scope="session")
def tiny_hunspell_pack(tmp_path_factory):
    """The hand-made Hunspell language in tests/data/hunspell_tiny (L·L, NY, QU, Ç),
    expanded by Debian's unmunch + hunspell (.ci/run installs them) and built into a
    temporary folder."""
    from heuri.pack import load_pack
    from pipeline.build import build_pack

    out = tmp_path_factory.mktemp("hunspell_tiny") / "hunspell_tiny"
    build_pack(DATA / "hunspell_tiny" / "spec.toml", out)
    return load_pack(out)
