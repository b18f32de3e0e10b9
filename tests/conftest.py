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


@pytest.fixture(scope="session")
def fra24_build(tmp_path_factory):
    """A folder of packs holding ``fr-FRA24``: a French pack imported (``heuri lexicon
    import``) from a plain list of exactly the words formed in the real FRA24 record
    tests/data/gcg/fr/001.gcg, so that a record whose lexicon is built can be answered
    with it. Returns ``(build folder, words)``; point ``HEURI_BUILD`` at the folder to use it."""
    from heuri.gcg import read_gcg, replay
    from heuri.spec import load_spec
    from pipeline.import_lexicon import import_lexicon

    root = tmp_path_factory.mktemp("fra24")
    r = replay(read_gcg(DATA / "gcg" / "fr" / "001.gcg"), load_spec("fr"))
    words = sorted({w for st in r.steps for w in st.words})
    src = root / "FRA24.txt"
    src.write_text("\n".join(w.lower() for w in words) + "\n", encoding="utf-8")
    build = root / "build"
    target, manifest, _ = import_lexicon(src, "fr", build=build)
    assert target == build / "fr-FRA24" and manifest["counts"]["words"] == len(words)
    return build, words


@pytest.fixture(scope="session")
def pl_small_pack(tmp_path_factory):
    """A pack of the Polish spec (32 letters and the blank: 33 tile kinds, the blank's id 32)
    imported from 6,000 made-up strings of 2 to 8 letters drawn from the Polish bag with a
    seeded generator: not Polish words, but a key set whose keys hold Ż (id 31) and blanks,
    and short words enough for a game to be played, for the kernels' tile-id arithmetic
    above 31 kinds."""
    import numpy as np

    from heuri.pack import load_pack
    from heuri.spec import load_spec
    from pipeline.import_lexicon import import_lexicon

    spec = load_spec("pl")
    letters = np.repeat(np.arange(spec.n_letters), spec.counts)
    rng = np.random.default_rng(33)
    words = set()
    for i in range(6000):
        draw = rng.choice(letters, (2, 3, 7, 8, 4, 7)[i % 6], replace=False)
        if i % 4 == 0:  # a quarter hold Ż or Ź (one tile each in the bag)
            draw[0] = spec.tiles.index("Ż" if i % 8 == 0 else "Ź")
        words.add("".join(spec.tiles[x] for x in draw))
    root = tmp_path_factory.mktemp("pl_small")
    src = root / "PLTEST.txt"
    src.write_text("\n".join(sorted(words)) + "\n", encoding="utf-8")
    target, _, _ = import_lexicon(src, "pl", build=root / "build")
    return load_pack(target)
