"""Replaying every real game record of the cases folder per its MANIFEST.tsv (the bundled
tests/data/gcg, or every record of ``$HEURI_CASES``).

Well-formed games (expect == ok) must reproduce every recorded score and running total
with the engine's own scoring (heuri.board.Board.score); each malformed file must fail
with a GcgError of the kind the MANIFEST's ``expect`` column names.

End-of-game rule: the records come from Woogles, Macondo and MAGPIE, which write one
doubled ``(RACK) +2v`` line in every language (the es and fr games included: their last
lines are ``(DLR) +8`` = 2 × (D2 + L1 + R1) and ``(EEGQS) +26`` = 2 × 13), and from Quackle,
which writes the transfer form (``(T) +1`` then ``T (T) -1``). Our es and fr packs follow
their federations' "transfer" rule, so the test replays with ``end_rule="auto"``: the rule
is read from the record's shape (heuri.gcg.detect_end_rule), never from its scores, and
the test below checks that the pack's own rule gives exactly the expected end-line
mismatch with a hint instead.
"""
from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from heuri.cli import main
from heuri.errors import GcgError, PackError
from heuri.gcg import read_gcg, replay, replay_file
from heuri.spec import load_spec

from shared_cases import ALL_CASES, BUNDLED, CASES

ROWS = list(csv.DictReader(open(ALL_CASES / "MANIFEST.tsv", encoding="utf-8"), delimiter="\t"))
SPECS = {lang: load_spec(lang) for lang in ("en", "es", "fr")}


@pytest.mark.parametrize("row", [r for r in ROWS if r["language"] in SPECS], ids=lambda r: r["file"])
def test_manifest_case(row):
    path = ALL_CASES / row["file"]
    spec = SPECS[row["language"]]
    if row["expect"] == "ok":
        r = replay_file(path, spec, end_rule="auto")
        assert r.mismatches == [], [(m.line, m.event, m.recorded_score, m.engine_score) for m in r.mismatches]
        for st in r.steps:
            assert st.engine_score == st.event.score and st.engine_totals == st.recorded_totals
        assert len(r.steps) == len(read_gcg(path).events)
        if row["complete"] == "yes":
            assert r.over and r.complete
    else:
        with pytest.raises(GcgError) as e:
            replay_file(path, spec, end_rule="auto")
        assert e.value.kind == row["expect"], str(e.value)
        assert str(path) in str(e.value)


def test_totals_checked_are_many():
    """Every well-formed record replays to its end: as many scores checked as the MANIFEST's
    turns and more (the end-of-game lines), and each record it calls complete ends the game."""
    ok = [row for row in ROWS if row["expect"] == "ok" and row["language"] in SPECS]
    n_scores = n_games = 0
    for row in ok:
        r = replay_file(ALL_CASES / row["file"], SPECS[row["language"]], end_rule="auto")
        n_scores += len(r.steps)
        n_games += r.over and r.complete
    assert n_games == sum(row["complete"] == "yes" for row in ok)
    assert n_scores >= sum(int(row["turns"]) for row in ok)
    if BUNDLED:  # tests/data/gcg: 12 well-formed records in es, en, fr, 9 of them complete
        assert (len(ok), n_games, n_scores) == (12, 9, 278)


def test_pack_rule_gives_end_line_mismatch_with_hint():
    r = replay_file(CASES / "es" / "001.gcg", SPECS["es"])        # FISE transfer rule
    assert r.end_rule == "transfer"
    assert [(m.line, m.event, m.recorded_score, m.engine_score) for m in r.mismatches] == [(33, "(DLR)", 8, 4)]
    assert "double" in r.mismatches[0].note
    assert replay_file(CASES / "es" / "001.gcg", SPECS["es"], end_rule="double").ok
    assert replay_file(CASES / "fr" / "001.gcg", SPECS["fr"], end_rule="double").ok
    q = CASES / "en" / "033.gcg"                                   # Quackle's transfer form
    assert replay_file(q, SPECS["en"], end_rule="transfer").ok
    assert [m.line for m in replay_file(q, SPECS["en"], end_rule="double").mismatches] == [29]


def test_unknown_words_are_warnings(pack_en):
    # QXZ on G8 . H8 (centre) . I8: (10+8+10)*2 = 56; then AE on G9 (DL) H9: AE 2+1, QA 10+2, XE 8+1
    text = "#player1 a A\n#player2 b B\n>a: QXZAEIO 8G QXZ +56 56\n>b: AEIOUST 9G AE +24 24\n"
    r = replay(read_gcg(text), SPECS["en"], words=pack_en.words)
    assert r.ok
    lex = SPECS["en"].lexicon
    assert r.warnings == [(3, f"8G QXZ: QXZ not in {lex}"), (4, f"9G AE: QA, XE not in {lex}")]
    assert r.off_list == [(3, "8G QXZ", ["QXZ"]), (4, "9G AE", ["QA", "XE"])]
    assert r.steps[1].words == ["AE", "QA", "XE"]


def test_replay_banner_counts_the_plays_outside_the_lexicon(capsys, pack_fr):
    """``heuri replay`` of the real French record (FRA24) with the bundled French list: a
    banner first names the lexicon that answered and counts the plays it does not hold, each
    of which is then a "not in <lexicon>" line; the record's other lexicon is warned of."""
    from heuri.formats.gcg import replay as replay_game

    path = CASES / "fr" / "001.gcg"
    lex = pack_fr.spec.lexicon
    r = replay_game(read_gcg(path), pack_fr.spec, words=pack_fr.words)
    off = [line for line, _, _ in r.off_list]
    assert off and all(all(w in pack_fr.words for w in st.words) != (st.event.line in off)
                       for st in r.steps if st.event.kind == "play")
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    flat = " ".join(out.split())  # the console wraps long lines
    assert flat.startswith(f"{path}: {len(off)} of 22 plays not in {lex} (the word list that answered)")
    assert "the record names lexicon FRA24" in flat
    assert flat.count(f"not in {lex}") == 1 + len(off)  # the banner, then one line a play
    assert f", {len(r.warnings) + 1} warnings (end rule" in flat  # the lexicon warning is counted


def test_polish_pack_missing_says_how_to_build_it(tmp_path, monkeypatch):
    from heuri.pack import load_pack

    monkeypatch.setenv("HEURI_BUILD", str(tmp_path))  # a build folder without a pl pack
    monkeypatch.delenv("HEURI_LEXICON", raising=False)
    with pytest.raises(PackError, match=r"no built pl pack .*snakemake --cores 2 pl"):
        load_pack("pl")


def test_cli_replay_exit_codes(capsys, tmp_path, monkeypatch):
    assert main(["replay", str(CASES / "es" / "001.gcg")]) == 0  # auto: the record doubles
    assert main(["replay", str(CASES / "es" / "001.gcg"), "--end-rule", "double"]) == 0
    assert main(["replay", str(CASES / "es" / "001.gcg"), "--end-rule", "transfer"]) == 1
    out = capsys.readouterr().out
    assert "(DLR)" in out and "mismatch" in out
    assert main(["replay", str(CASES / "en" / "022.gcg"), "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "022.gcg:15" in err and "inconsistent-total" in err
    assert main(["replay", str(CASES / "pl" / "001.gcg")]) == 2
    assert "--lang" in capsys.readouterr().err
    empty = tmp_path / "empty"  # a build folder without a pl pack
    empty.mkdir()
    monkeypatch.setenv("HEURI_BUILD", str(empty))
    assert main(["--build", str(empty), "replay", str(CASES / "pl" / "001.gcg"), "--lang", "pl"]) == 2
    assert "snakemake --cores 2 pl" in capsys.readouterr().err


def test_cli_show(capsys):
    assert main(["show", str(CASES / "en" / "001.gcg"), "--turn", "1"]) == 2     # no #lexicon: needs --lang
    capsys.readouterr()
    assert main(["show", str(CASES / "en" / "001.gcg"), "--turn", "1", "--lang", "en"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[8].split() == ["8", "=", ".", ".", "D", "J", "I", "N", "N", ".", ".", ".", "'", ".", ".", "="]
    assert any(line.startswith("* p2") and "HITWY" in line for line in out)
    assert main(["show", "--cgp", "/".join(["15"] * 15) + " AEINRST/ 10/0 0 lex CSW21;"]) == 0
    out = capsys.readouterr().out
    assert "AEINRST" in out and "(unknown)" in out and "bag: 86" in out


# -- odd but readable records: warnings with their line ----------------------------------
EN = SPECS["en"]
PLAYERS = "#player1 p1 Player One\n#player2 p2 Player Two\n"
# 8H ANTSIER: 8 points doubled by the centre, + 50; N2 DITZIE(S) scored by the engine (38)
OPENING = PLAYERS + ">p1: AEINRST 8H ANTSIER +66 66\n>p2: DEIILTZ N2 DITZIE. +38 38\n"


def test_challenge_line_with_placeholder_rack_replays():
    text = OPENING + ">p2: UNKNOWN (challenge) +5 43\n>p1: ?AEHLOW 9G HAW +28 94\n"
    r = replay(read_gcg(text), EN)
    assert r.ok and r.steps[2].recorded_totals == [66, 43] and r.warnings == []
    # a rack field that is not a rack the set allows here is a warning, not a stop
    text = OPENING + ">p2: ZZ (challenge) +5 43\n"
    r = replay(read_gcg(text), EN)
    assert r.ok and r.warnings == [(5, "rack field 'ZZ' of the (challenge) line is not a rack the tile "
                                        "set allows here; ignored")]


def test_end_rack_line_whose_tiles_differ_is_a_warning():
    # a six-zero ending: both players lose their racks; p2 writes ABC but scores (ABD)
    text = (PLAYERS + "".join(f">p{i % 2 + 1}: ABCDEFG - +0 0\n" for i in range(6))
            + ">p1: ABCDEFG (ABCDEFG) -16 -16\n>p2: ABC (ABD) -6 -6\n")
    r = replay(read_gcg(text), EN)
    assert r.ok and r.complete
    assert r.warnings == [(10, "end-of-game line: the tiles in parentheses (ABD) differ from the rack "
                               "ABC; scored on (ABD)")]


def test_racks_that_need_more_tiles_than_are_left_are_a_warning():
    # p1 keeps the only X after its play (leave X); p2 then claims a rack with an X
    text = PLAYERS + ">p1: AEINRSX 8H SNARE +12 12\n>p2: DEIILTX K4 EDIT.IX +30 30\n"
    r = replay(read_gcg(text), EN)
    assert r.warnings == [(4, "rack DEIILTX and the tiles known on the other rack need X more than "
                              "the tile set has left off the board")]
    assert replay(read_gcg(text), EN).ok
    r = replay(read_gcg(CASES / "en" / "063.gcg"), EN, end_rule="auto")
    assert r.ok and [w[0] for w in r.warnings] == [21, 22]       # p2's 'IX' while p1 holds the X


def test_replay_folder_summary(tmp_path, capsys):
    (tmp_path / "a.gcg").write_text(OPENING)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.gcg").write_text(OPENING.replace("+38 38", "+40 40"))   # a mismatch
    (tmp_path / "c.gcg").write_text(PLAYERS + ">p1: AEINRST 8H ANTSIER +66 60\n")      # refused
    (tmp_path / "d.gcg").write_text(PLAYERS + "#lexicon CSW21\n" + ">p1: AEINRST 8H ANTSIER +66 66\n")
    (tmp_path / "notes.txt").write_text("not a record")
    code = main(["replay", "--lang", "en", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    counts = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 2 and cells[1].isdigit():
            counts[cells[0]] = int(cells[1])
    # d.gcg names CSW21, which did not answer: its one warning
    assert counts == {"read": 4, "replayed": 3, "complete": 0, "with mismatches": 1, "with warnings": 1,
                      "with plays not in the lexicon": 0, "refused": 1, "refused: inconsistent-total": 1}
    assert "c.gcg:3" in out and "names lexicon CSW21" in " ".join(out.split())
    shutil.rmtree(tmp_path / "sub")
    (tmp_path / "c.gcg").unlink()
    assert main(["replay", "--lang", "en", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "nothing-here")]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_blank_digraphs_survive_the_tables(tmp_path, capsys):
    # rich would read a lower-case '[ch]' (a blank standing for CH) as markup and drop it; the
    # table writes the move as people read it: a blank CH in lower case, without brackets
    f = tmp_path / "ch.gcg"
    f.write_text("#player1 a A\n#player2 b B\n>a: ?AOSTRE 8H [ch]AO +10 10\n")
    assert main(["replay", "--lang", "es", str(f)]) == 1        # (0 + 1 + 1) × 2 = 4, not 10
    out = capsys.readouterr().out
    assert "│ 8H chAO │" in out
    # a record without end lines replays with the pack's end rule under --end-rule auto
    assert "(end rule transfer)" in out

