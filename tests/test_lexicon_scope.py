"""Which pack answers when a lexicon is named for one language of several: ``heuri
--lexicon NAME serve`` answers NAME's language with NAME's pack and every other language
with its default pack, and an SIU ``position`` whose CGP ``lex`` names another built
lexicon of the same language is read with that lexicon's pack. Two lexicons of the tiny
test language, imported from plain lists written here, stand in for federation files."""
from __future__ import annotations

from pathlib import Path

import pytest

from heuri.errors import PackError
from pipeline.import_lexicon import import_lexicon

DATA = Path(__file__).parent / "data"
TINY = DATA / "tiny" / "spec.toml"
REPO_BUILD = Path(__file__).resolve().parents[1] / "build"
# Two word lists of the tiny language (tiles A B E T) with no word in common, so that the
# pack that answered shows in its words.
T1_WORDS = ["AT", "TAB", "BEAT"]
T2_WORDS = ["BE", "TEA", "BET", "ABET"]
EMPTY_TINY_CGP = "/".join(["15"] * 15) + " ABE/ 0/0 0"


@pytest.fixture(scope="module")
def _tiny_build(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scope")
    build = tmp / "build"
    build.mkdir()
    folders = {}
    for name, words in (("T1", T1_WORDS), ("T2", T2_WORDS)):
        f = tmp / f"{name}.txt"
        f.write_text("\n".join(words) + "\n", encoding="utf-8")
        folders[name] = import_lexicon(f, str(TINY), name=name, build=build)[0]
    if (REPO_BUILD / "en" / "manifest.json").is_file():
        (build / "en").symlink_to(REPO_BUILD / "en", target_is_directory=True)
    return build, folders


@pytest.fixture()
def two_tiny_lexicons(_tiny_build, monkeypatch):
    """A build folder with the tiny packs of lexicons T1 and T2 (and, when the repository's
    English pack is built, a link to it), in use (``HEURI_BUILD``): ``(build, {name: folder})``."""
    build, folders = _tiny_build
    monkeypatch.setenv("HEURI_BUILD", str(build))
    monkeypatch.delenv("HEURI_LEXICON", raising=False)
    return build, folders


def test_lexicon_of_language_names_the_lexicon_for_its_own_language_only(two_tiny_lexicons, monkeypatch):
    from heuri.pack import lexicon_of_language

    assert lexicon_of_language("tiny") is None  # none set
    monkeypatch.setenv("HEURI_LEXICON", "t2")
    assert lexicon_of_language("tiny") == "t2" and lexicon_of_language("TINY") == "t2"
    assert lexicon_of_language("en") is None  # T2 is a tiny lexicon: English keeps its default
    monkeypatch.setenv("HEURI_LEXICON", "NOPE9")  # not built: kept, so that loading it says how to build it
    assert lexicon_of_language("en") == "NOPE9"


def test_serve_lexicon_applies_to_its_language_only(two_tiny_lexicons, monkeypatch):
    from heuri.apps.web.service import Service
    from heuri.pack import load_pack

    build, folders = two_tiny_lexicons
    if not (build / "en").is_dir():
        pytest.skip("the en pack is not built (snakemake --cores 2 en)")
    monkeypatch.setenv("HEURI_LEXICON", "T2")
    with pytest.raises(PackError, match="lexicon T2 is a tiny pack"):
        load_pack("en")  # one command, one language: a lexicon of another is still an error
    s = Service(langs=("en", "tiny"))
    assert s.packs["tiny"].root == folders["T2"] and s.packs["tiny"].words == frozenset(T2_WORDS)
    assert s.packs["en"].root.resolve() == (REPO_BUILD / "en").resolve() and s.packs["en"].spec.code == "en"
    assert s.pack({"lang": "tiny"}).spec.lexicon == "T2"
    # the other lexicon of the language is still offered by name
    assert s.pack({"lang": "tiny", "lexicon": "T1"}).words == frozenset(T1_WORDS)
    assert [x["name"] for x in s.lexicons("tiny")] == ["T2", "T1"]


def test_cli_serve_adds_the_lexicons_language(two_tiny_lexicons, monkeypatch):
    import heuri.apps.web as web
    from heuri.cli import main

    build, _ = two_tiny_lexicons
    seen = []
    monkeypatch.setattr(web, "serve", lambda host, port, langs, **kw: seen.append(list(langs)) or 0)
    assert main(["--build", str(build), "--lexicon", "T1", "serve", "--lang", "en"]) == 0
    assert main(["--build", str(build), "--lexicon", "T1", "serve", "--lang", "tiny", "en"]) == 0
    assert seen == [["en", "tiny"], ["tiny", "en"]]


def test_siu_position_lex_switches_to_that_lexicons_pack(two_tiny_lexicons):
    from heuri.play.siu import HeuriBackend

    _, folders = two_tiny_lexicons
    be = HeuriBackend("tiny")
    # a lexicon name as short as a language code (T1) is the lexicon's when its pack is built
    assert be.set_option("Lexicon", "T1") == [] and be.pack.root == folders["T1"]
    p = be.set_position(EMPTY_TINY_CGP + " lex T2;", [], None)
    assert p.pack.root == folders["T2"] and p.pack.words == frozenset(T2_WORDS) and not p.notes
    assert "lexicon=tiny:T2@" in be.provenance(p)
    assert be.pack.root == folders["T1"]  # the option is unchanged: the opcode is for this position
    assert be.set_position(EMPTY_TINY_CGP + " lex t1;", [], None).pack.root == folders["T1"]
    assert be.set_position(EMPTY_TINY_CGP, [], None).pack.root == folders["T1"]
    # a lexicon with no pack here: the option's pack answers, and says so
    p = be.set_position(EMPTY_TINY_CGP + " lex T9;", [], None)
    assert p.pack.root == folders["T1"] and p.notes and "T9" in p.notes[0]


def test_position_pack_source(two_tiny_lexicons):
    from heuri.pack import load_pack
    from heuri.play.siu.backend import position_pack_source

    _, folders = two_tiny_lexicons
    t1 = load_pack(folders["T1"])
    assert position_pack_source(EMPTY_TINY_CGP + " lex T2;", t1) == str(folders["T2"])
    assert position_pack_source(EMPTY_TINY_CGP + " lex T1;", t1) is None
    assert position_pack_source(EMPTY_TINY_CGP + " lex FISE2;", t1) == "es"  # another language: its code
    assert position_pack_source(EMPTY_TINY_CGP, t1) is None
