"""Language packs: a spec plus the artifacts the pipeline built, memory-mapped.

>>> pack = load_pack("es")
>>> pack.keys.counts.shape, pack.keys.counts.dtype
((290308, 29), dtype('uint8'))

Packs live in ``build/<lang>/`` of the repository, or in the folder named by the environment
variable ``HEURI_BUILD`` (what ``heuri --build DIR`` sets), so that a pack built in another
checkout can be used; ``snakemake --cores 2 <lang>`` makes them. A pack carries the spec it
was built from (``spec.toml``), and that copy is the one loaded.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from .errors import PackError, SpecError
from .spec import LEXICONS, REPO_ROOT, LanguageSpec, load_spec

#: Must equal pipeline.common.PACK_FORMAT; a pack of another format is stale.
PACK_FORMAT = 1

REQUIRED = ("manifest.json", "spec.toml", "tiles.parquet", "words.parquet", "anagrams.parquet",
            "septets.parquet", "pure_septets.parquet", "reduced_octets.parquet",
            "keys/code.npy", "keys/counts.npy", "keys/sigma.npy", "keys/flags.npy",
            "keys/completers.npy", "graph/gaddag.npy", "graph/root.npy", "bingo/meta.json")

SEPTET, REDUCED_OCTET = 1, 2


def build_root() -> Path:
    """Where packs are looked for: ``$HEURI_BUILD`` or ``<repo>/build``."""
    return Path(os.environ.get("HEURI_BUILD", REPO_ROOT / "build"))


@dataclass(frozen=True)
class KeySet:
    """Heuri_3's key set (septets ∪ reduced octets), memory-mapped, one row per key.

    - ``counts``: (n, L+1) uint8, the key as a count vector (blank last).
    - ``sigma``: (n,) int16, σ(s) = sum of the key's face values (points).
    - ``flags``: (n,) uint8, bit 1 = septet, bit 2 = reduced octet; a pure septet has
      flags == 1.
    - ``completers``: (n,) uint64, bit x set when tile x completes the key to an 8-tile
      word (reduced octets only).
    - ``code``: (n,) int64, the sorted key encoded 6 bits a tile (pipeline.keys.encode).
    """

    code: np.ndarray
    counts: np.ndarray
    sigma: np.ndarray
    flags: np.ndarray
    completers: np.ndarray

    @property
    def is_septet(self) -> np.ndarray:
        return (self.flags & SEPTET) != 0

    @property
    def is_reduced_octet(self) -> np.ndarray:
        return (self.flags & REDUCED_OCTET) != 0

    @property
    def is_pure_septet(self) -> np.ndarray:
        return self.flags == SEPTET

    def __len__(self) -> int:
        return len(self.code)


@dataclass(frozen=True)
class WordGraph:
    """The pack's minimised GADDAG (pipeline/wordgraph.py), memory-mapped.

    - ``nodes``: (n,) uint32, the flat graph: a node at word ``s`` is a header of
      ``header_words`` words (bit ``x`` = has an arc for letter ``x``, bit
      ``32 * header_words - 1`` = has a separator arc) followed by its arcs (separator
      first, then by letter), one word an arc: bits 0-30 the child node (0 = none), bit 31
      accepts.
    - ``root``: the root node (int); ``header_words``: 1 (at most 31 letters) or 2.

    Walked by :mod:`heuri.movegen` (move generation, cross-checks, ``is_word``).
    """

    nodes: np.ndarray
    root: int
    header_words: int = 2


class LanguagePack:
    """A built language pack: ``spec`` (LanguageSpec), ``manifest`` (dict), ``keys``
    (KeySet, memory-mapped) and the Parquet artifacts, read on demand.

    Use :func:`load_pack` to get one (it checks the pack is complete and fresh)."""

    def __init__(self, spec: LanguageSpec, root: Path, manifest: dict):
        self.spec = spec
        self.root = root
        self.manifest = manifest
        kd = root / "keys"
        self.keys = KeySet(*(np.load(kd / f"{n}.npy", mmap_mode="r")
                             for n in ("code", "counts", "sigma", "flags", "completers")))

    @property
    def code(self) -> str:
        return self.spec.code

    @property
    def id(self) -> str:
        """Pack id for provenance lines: ``<lang>:<lexicon>@<wordlist sha256[:12]>``."""
        import re

        sha = self.manifest["inputs"]["wordlist"]["sha256"][:12]
        lexicon = re.sub(r"[^A-Za-z0-9._-]+", "-", self.spec.lexicon).strip("-")
        return f"{self.spec.code}:{lexicon}@{sha}"

    def table(self, name: str):
        """A Parquet artifact (``"words"``, ``"septets"``, ...) as a pyarrow Table read
        through a memory map."""
        import pyarrow.parquet as pq

        path = self.root / f"{name}.parquet"
        if not path.is_file():
            raise PackError(f"{path}: no such artifact in the {self.code} pack")
        return pq.read_table(path, memory_map=True)

    @cached_property
    def graph(self) -> WordGraph:
        """The word graph (GADDAG), memory-mapped on first use."""
        gd = self.root / "graph"
        root = np.load(gd / "root.npy")
        return WordGraph(np.load(gd / "gaddag.npy", mmap_mode="r"), int(root[0]),
                         int(root[1]) if len(root) > 1 else 2)

    @cached_property
    def bingo(self):
        """The bingo index of :mod:`heuri.bingo` (pipeline/bingo_index.py: word bitsets,
        word → key maps, blank links, word codes), memory-mapped on first use."""
        from .bingo import bingo_index

        return bingo_index(self)

    @cached_property
    def tile_power(self) -> np.ndarray:
        """Each tile's scoring power, (K,) float64 points indexed by tile id (blank last):
        what one tile on the rack adds to the best non-bingo move, against an average tile
        of the set (pipeline/tile_power.py; Heuri5's leave term). Raises PackError when the
        pack was built without it."""
        path = self.root / "tile_power.parquet"
        if not path.is_file():
            raise PackError(f"{path}: the {self.code} pack has no tile_power artifact (built before it); "
                            f"{_build_hint(self.code)}")
        t = self.table("tile_power")
        power = np.zeros(self.spec.n_kinds, np.float64)
        power[t.column("id").to_numpy().astype(np.int64)] = t.column("power").to_numpy()
        return power

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of the pack as its normalised spelling (``"CHICAS"``)."""
        return frozenset(self.table("words").column("word").to_pylist())

    def __repr__(self) -> str:
        c = self.manifest["counts"]
        return f"<LanguagePack {self.code} {c['words']} words, {c['keyset']} keys at {self.root}>"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _build_hint(lang: str) -> str:
    return f"build it with: snakemake --cores 2 {lang}"


def _source_lexicons(root: Path, code: str) -> Path | None:
    """The lexicon folder a pack at ``root`` is checked against (see load_pack)."""
    if root.resolve() != (build_root() / code).resolve():
        return None
    beside = build_root().resolve().parent / "lexicons"
    return (beside if beside.is_dir() else LEXICONS) / code


def load_pack(lang: str | os.PathLike, check_fresh: bool = True) -> LanguagePack:
    """Load a built language pack.

    ``lang``: a language code (``"es"``: ``build/es`` with its spec in ``lexicons/es``) or
    the path of a pack folder (its spec is found through the manifest's language code, or
    ``spec.toml`` inside the folder). Arrays are memory-mapped; nothing large is read.

    Raises PackError (a ValueError) when the pack is missing or incomplete, or stale: the
    spec, the word list or the pack format changed since it was built. The message gives
    the command that builds it.
    """
    p = Path(lang)
    if p.is_dir():
        root = p
    else:
        # language codes are lower case (ISO 639-1): ``EN`` is ``en``
        root = build_root() / (str(lang).lower() if os.sep not in str(lang) else str(lang))
    code = root.name
    if not (root / "manifest.json").is_file():
        known = sorted(d.parent.name for d in build_root().glob("*/manifest.json")) if build_root().is_dir() else []
        if not (LEXICONS / code / "spec.toml").is_file() and not p.is_dir():
            langs = sorted(q.parent.name for q in LEXICONS.glob("*/spec.toml"))
            raise PackError(f"no language {code!r}: lexicons/ has {langs}, built packs: {known or 'none'}")
        raise PackError(f"{root}: no built {code} pack (manifest.json missing); {_build_hint(code)}")
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    code = manifest.get("language", code)
    missing = [r for r in REQUIRED if not (root / r).exists()]
    if missing:
        raise PackError(f"{root}: incomplete {code} pack, missing {missing}; {_build_hint(code)}")
    # The pack carries a copy of the spec it was built from; the lexicon's current spec
    # and word list (when this is the repository's pack of that language) must match it.
    spec_file = root / "spec.toml" if (root / "spec.toml").is_file() else LEXICONS / code / "spec.toml"
    spec = load_spec(spec_file)
    if check_fresh:
        if manifest.get("pack_format") != PACK_FORMAT:
            raise PackError(f"{root}: stale {code} pack (format {manifest.get('pack_format')}, "
                            f"this heuri reads {PACK_FORMAT}); {_build_hint(code)}")
        # A pack in <checkout>/build/<lang> was built from <checkout>/lexicons/<lang>: the
        # checkout of the build folder in use (--build, $HEURI_BUILD), not necessarily the
        # one heuri is installed from; a build folder with no lexicons/ beside it is
        # compared with the installed lexicons/. A pack folder given by path is taken as it is.
        src = _source_lexicons(root, code)
        if src is not None and (src / "spec.toml").is_file():
            try:
                files = {"spec": src / "spec.toml", **load_spec(src / "spec.toml").source_files()}
            except SpecError as e:
                raise PackError(f"{root}: its source spec does not load: {e}") from None
            for kind, path in files.items():
                want = manifest["inputs"].get(kind, {}).get("sha256")
                if not path.is_file() or _sha256(path) != want:
                    raise PackError(f"{root}: stale {code} pack: {path} changed since it was built; "
                                    f"{_build_hint(code)}")
    return LanguagePack(spec, root, manifest)


def list_packs() -> list[dict]:
    """Built packs under :func:`build_root`: one dict per pack with the manifest's
    language, lexicon, counts and whether it is fresh (``status``)."""
    out = []
    root = build_root()
    for m in sorted(root.glob("*/manifest.json")) if root.is_dir() else []:
        manifest = json.loads(m.read_text(encoding="utf-8"))
        try:
            load_pack(m.parent)
            status = "ok"
        except PackError as e:
            status = "stale" if "stale" in str(e) else "broken"
        out.append({"language": manifest.get("language", m.parent.name), "lexicon": manifest.get("lexicon"),
                    "counts": manifest.get("counts", {}), "status": status, "path": str(m.parent)})
    return out
