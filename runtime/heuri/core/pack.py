"""Language packs: a spec plus the artifacts the pipeline built, memory-mapped.

>>> pack = load_pack("es")
>>> pack.keys.counts.shape, pack.keys.counts.dtype
((290308, 29), dtype('uint8'))

Packs live in ``build/<lang>/`` of the repository, or in the folder named by the environment
variable ``HEURI_BUILD`` (what ``heuri --build DIR`` sets), so that a pack built in another
checkout can be used; ``snakemake --cores 2 <lang>`` makes them. A pack carries the spec it
was built from (``spec.toml``), and that copy is the one loaded.

A pack built from a lexicon file the player has (``heuri lexicon import FILE --lang fr``,
pipeline/import_lexicon.py) lives beside them in ``<build>/<lang>-<NAME>/`` and answers to
its lexicon's name: ``load_pack("fr", lexicon="FRA20")``, ``heuri --lexicon FRA20 ...``
(the environment variable ``HEURI_LEXICON``), or a record's ``#lexicon FRA20`` / CGP
``lex FRA20;`` (:func:`pack_for_record`).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

from .errors import PackError, SpecError
from .spec import LEXICONS, LanguageSpec, build_root, load_spec

#: The layout of the built artifacts, written into each manifest by the pipeline (which
#: reads it from here): bump it when an artifact's layout changes, and packs built by
#: another format are stale.
PACK_FORMAT: int = 1


@dataclass(frozen=True)
class PackStep:
    """One step of the pipeline that builds a pack.

    ``name``: the step (the Snakefile's rule and the ``pipeline/<name>.py`` module that runs
    it); ``files``: what it writes into the pack folder, paths relative to it, the first
    being the file the Snakefile tracks; ``required``: whether :func:`load_pack` refuses a
    pack without them (an optional artifact's reader says itself how to build it, so that
    packs built before that step existed still load)."""

    name: str
    files: tuple[str, ...]
    required: bool = True


#: The pipeline's steps in build order: the one list that ``pipeline/build.py`` runs, the
#: Snakefile's manifest rule waits on and :func:`load_pack` checks (``REQUIRED``).
PACK_STEPS: tuple[PackStep, ...] = (
    PackStep("tiles", ("tiles.parquet",)),
    PackStep("words", ("words.parquet", "rejects.json")),
    PackStep("anagrams", ("anagrams.parquet",)),
    PackStep("keys", ("keys.json", "septets.parquet", "pure_septets.parquet", "reduced_octets.parquet",
                      "keys/code.npy", "keys/counts.npy", "keys/sigma.npy", "keys/flags.npy",
                      "keys/completers.npy")),
    PackStep("wordgraph", ("graph/meta.json", "graph/gaddag.npy", "graph/root.npy")),
    PackStep("bingo_index", ("bingo/meta.json",)),
    PackStep("long_alphagrams", ("long_alphagrams/meta.json", "long_alphagrams/zobrist.npy",
                                 "long_alphagrams/hashes.npy"), required=False),
    PackStep("tile_power", ("tile_power.parquet", "tile_power.json"), required=False),
    PackStep("manifest", ("manifest.json", "spec.toml")),
)

#: The files a pack must hold to load (the required steps' files).
REQUIRED: tuple[str, ...] = tuple(f for step in PACK_STEPS if step.required for f in step.files)

SEPTET, REDUCED_OCTET = 1, 2


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

    code: NDArray[np.int64]  # (n,)
    counts: NDArray[np.uint8]  # (n, L+1)
    sigma: NDArray[np.int16]  # (n,)
    flags: NDArray[np.uint8]  # (n,)
    completers: NDArray[np.uint64]  # (n,)

    @property
    def is_septet(self) -> NDArray[np.bool_]:
        """(n,) bool: the key is a septet."""
        return (self.flags & SEPTET) != 0

    @property
    def is_reduced_octet(self) -> NDArray[np.bool_]:
        """(n,) bool: the key is a reduced octet."""
        return (self.flags & REDUCED_OCTET) != 0

    @property
    def is_pure_septet(self) -> NDArray[np.bool_]:
        """(n,) bool: a septet that is not also a reduced octet."""
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

    nodes: NDArray[np.uint32]  # (n,)
    root: int
    header_words: int = 2


class LanguagePack:
    """A built language pack: ``spec`` (LanguageSpec), ``manifest`` (dict), ``keys``
    (KeySet, memory-mapped) and the Parquet artifacts, read on demand.

    Use :func:`load_pack` to get one (it checks the pack is complete and fresh)."""

    spec: LanguageSpec
    root: Path
    manifest: dict[str, Any]
    keys: KeySet

    def __init__(self, spec: LanguageSpec, root: Path, manifest: dict[str, Any]):
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

    def table(self, name: str) -> "pa.Table":
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
    def tile_power(self) -> NDArray[np.float64]:
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
    def win_probability_table(self) -> dict[str, np.ndarray] | None:
        """The columns of ``win_probability.parquet`` (the chance to win given the spread
        and the bag, pipeline/win_probability.py; read by
        :meth:`heuri.eval.win_probability.WinProbability.of_pack`), or None when it was not
        built. A pack of an imported lexicon (``build/fr-FRA20``) without its own reads its
        language's (``build/fr``): the chance is a property of the game more than of the
        word list."""
        import pyarrow.parquet as pq

        folder = self._win_probability_folder
        if folder is None:
            return None
        t = pq.read_table(folder / "win_probability.parquet")
        return {n: t.column(n).to_numpy() for n in t.column_names}

    @cached_property
    def _win_probability_folder(self) -> Path | None:
        """The folder whose ``win_probability.parquet`` this pack reads: its own, else its
        language's (:attr:`win_probability_table`); None when neither was built."""
        for folder in (self.root, self.root.parent / self.code):
            if (folder / "win_probability.parquet").is_file():
                return folder
        return None

    @cached_property
    def win_probability_id(self) -> str | None:
        """The win-probability table's id for provenance lines (SIU's ``winpct``):
        ``<lang>:<engine>-selfplay-<games>@<seed>`` from the ``win_probability.json`` the
        pipeline writes beside the table (``en:heuri2-selfplay-400@20261205``), or None when
        the pack reads no table. Raises PackError for a description that is not readable."""
        folder = self._win_probability_folder
        if folder is None:
            return None
        path = folder / "win_probability.json"
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
            return f"{folder.name}:{d['engine']}-selfplay-{int(d['games'])}@{int(d['seed'])}"
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise PackError(f"{path}: not a win-probability description ({e})") from None

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of the pack as its normalised spelling (``"CHICAS"``)."""
        return frozenset(self.table("words").column("word").to_pylist())

    def __repr__(self) -> str:
        c = self.manifest["counts"]
        return f"<LanguagePack {self.code} {c['words']} words, {c['keyset']} keys at {self.root}>"


def lexicon_packs() -> dict[str, tuple[Path, dict]]:
    """Packs built from a lexicon file under :func:`build_root`, by lexicon name (upper
    case): ``{"FRA20": (folder, manifest)}``."""
    out = {}
    root = build_root()
    for m in sorted(root.glob("*/manifest.json")) if root.is_dir() else []:
        if m.parent.name.startswith("."):  # an import under way (pipeline/import_lexicon.py)
            continue
        try:
            manifest = json.loads(m.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if "lexicon_file" in manifest and manifest.get("lexicon"):
            out.setdefault(str(manifest["lexicon"]).upper(), (m.parent, manifest))
    return out


def lexicon_language(name: str) -> str | None:
    """The language code of the built pack of lexicon ``name`` (any case), or None."""
    hit = lexicon_packs().get(str(name).strip().upper())
    return hit[1].get("language") if hit else None


def lexicon_of_language(lang: str) -> str | None:
    """The lexicon ``$HEURI_LEXICON`` (``heuri --lexicon NAME``) names for language
    ``lang``, where one process answers several languages (``heuri serve``): the name when
    its pack is of ``lang`` (the folder ``<build>/<lang>-<NAME>``), None when it belongs to
    another language (``lang`` keeps its default pack) or none is set. A name with no
    built pack is returned as it is, so that loading it says which command builds it."""
    name = (os.environ.get("HEURI_LEXICON") or "").strip()
    if not name:
        return None
    owner = lexicon_language(name)
    return name if owner is None or owner == str(lang).lower() else None


def _import_hint(name: str, lang: str | None) -> str:
    return (f"build it from the lexicon file with: heuri lexicon import {name}.kwg --lang {lang or 'LANG'} "
            f"--name {name}")


def lexicon_root(name: str, lang: str | None) -> Path:
    """The folder of the pack of lexicon ``name``; PackError (one line: the lexicon and the
    command that builds it) when there is none, or when it is not of language ``lang``."""
    hit = lexicon_packs().get(str(name).strip().upper())
    if hit is None:
        raise PackError(f"no pack of lexicon {name} under {build_root()}; {_import_hint(name, lang)}")
    root, manifest = hit
    if lang and manifest.get("language") != str(lang).lower():
        raise PackError(f"lexicon {name} is a {manifest.get('language')} pack ({root}), not {lang}: "
                        f"give --lang {manifest.get('language')}, or another --lexicon for {lang}")
    return root


def pack_for_record(lang: str | os.PathLike, lexicon: str | None, check_fresh: bool = True) -> "LanguagePack":
    """The pack a record (GCG ``#lexicon``, CGP ``lex``) is answered with: the pack of
    ``--lexicon`` (``HEURI_LEXICON``) when given, else the pack of the record's lexicon when
    one of ``lang`` is built, else the language's default pack (whose word list may not be
    the record's: the callers' lexicon warning says so)."""
    if not os.environ.get("HEURI_LEXICON") and lexicon and not Path(lang).is_dir():
        hit = lexicon_packs().get(lexicon.strip().upper())
        if hit is not None and hit[1].get("language") == str(lang).lower():
            return load_pack(hit[0], check_fresh)
    return load_pack(lang, check_fresh)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _build_hint(lang: str) -> str:
    try:
        if load_spec(lang).wordlist_source == "import":
            return (f"{lang} has no bundled word list: build a pack from your lexicon file with: "
                    f"heuri lexicon import FILE --lang {lang} (docs/lexicons.md)")
    except SpecError:
        pass
    return f"build it with: snakemake --cores 2 {lang}"


def _source_lexicons(root: Path, code: str) -> Path | None:
    """The lexicon folder a pack at ``root`` is checked against (see load_pack)."""
    if root.resolve() != (build_root() / code).resolve():
        return None
    beside = build_root().resolve().parent / "lexicons"
    return (beside if beside.is_dir() else LEXICONS) / code


def load_pack(lang: str | os.PathLike, check_fresh: bool = True, lexicon: str | None = None) -> LanguagePack:
    """Load a built language pack.

    ``lang``: a language code (``"es"``: ``build/es`` with its spec in ``lexicons/es``) or
    the path of a pack folder (its spec is found through the manifest's language code, or
    ``spec.toml`` inside the folder). Arrays are memory-mapped; nothing large is read.

    ``lexicon``: the name of a lexicon imported for ``lang`` (``"FRA20"``: the pack
    ``<build>/fr-FRA20``); default ``$HEURI_LEXICON`` (``heuri --lexicon``) when ``lang`` is
    a code. A pack folder given by path is loaded as it is.

    Raises PackError (a ValueError) when the pack is missing or incomplete, or stale: the
    spec, the word list or the pack format changed since it was built; or when no pack of
    ``lexicon`` is built for ``lang``. The message gives the command that builds it.
    """
    p = Path(lang)
    if lexicon is None and not p.is_dir():
        lexicon = os.environ.get("HEURI_LEXICON") or None
    if lexicon and not p.is_dir():
        p = root = lexicon_root(lexicon, str(lang))
    if p.is_dir():
        root = p
    else:
        # language codes are lower case (ISO 639-1): ``EN`` is ``en``
        root = build_root() / (str(lang).lower() if os.sep not in str(lang) else str(lang))
    code = root.name
    if not (root / "manifest.json").is_file() and not p.is_dir():
        # No default pack: a language whose only packs come from lexicon files.
        own = sorted(n for n, (_, m) in lexicon_packs().items() if m.get("language") == code)
        if len(own) == 1:
            return load_pack(lexicon_packs()[own[0]][0], check_fresh)
        if own:
            raise PackError(f"{root}: no default {code} pack; the {code} packs are of lexicons {own}: "
                            f"choose one with --lexicon NAME")
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
    if "lexicon_file" in manifest and manifest.get("lexicon"):
        # A pack of an imported lexicon: the spec is the language's, the words the file's.
        import dataclasses

        spec = dataclasses.replace(spec, lexicon=str(manifest["lexicon"]))
    if check_fresh:
        if manifest.get("pack_format") != PACK_FORMAT:
            raise PackError(f"{root}: stale {code} pack (format {manifest.get('pack_format')}, "
                            f"this heuri reads {PACK_FORMAT}); {_build_hint(code)}")
        dropped = dropped_lexicon_words(manifest)
        if dropped:
            raise PackError(f"{root}: stale {code} pack of lexicon {manifest.get('lexicon')}: an open-list filter "
                            f"dropped {dropped} of the file's words when it was built (e.g. "
                            f"{', '.join(manifest['rejected']['short_without_vowel']['examples'][:3])}); import it "
                            f"again: heuri lexicon import {manifest['lexicon_file'].get('file', 'FILE')} --lang {code}")
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


def dropped_lexicon_words(manifest: dict) -> int:
    """How many of a lexicon file's words an open-list filter (``short_without_vowel``) left
    out of an imported pack (an import before lexicons were kept whole); 0 for any other pack."""
    if "lexicon_file" not in manifest:
        return 0
    return int(manifest.get("rejected", {}).get("short_without_vowel", {}).get("count", 0))


def list_packs() -> list[dict[str, Any]]:
    """Built packs under :func:`build_root`: one dict per pack with the manifest's
    language, lexicon, counts and whether it is fresh (``status``)."""
    out = []
    root = build_root()
    for m in sorted(root.glob("*/manifest.json")) if root.is_dir() else []:
        if m.parent.name.startswith("."):  # an import under way (pipeline/import_lexicon.py)
            continue
        manifest = json.loads(m.read_text(encoding="utf-8"))
        try:
            load_pack(m.parent)
            status = "ok"
        except PackError as e:
            status = "stale" if "stale" in str(e) else "broken"
        out.append({"language": manifest.get("language", m.parent.name), "lexicon": manifest.get("lexicon"),
                    "counts": manifest.get("counts", {}), "status": status, "path": str(m.parent),
                    "pack": m.parent.name, "source_sha256": manifest.get("lexicon_file", {}).get("sha256")})
    return out
