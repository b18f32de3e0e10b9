"""Replaying every real game record in ../shared/cases/gcg per MANIFEST.tsv.

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
from pathlib import Path

import pytest

from heuri.cli import main
from heuri.errors import GcgError, PackError
from heuri.gcg import read_gcg, replay, replay_file
from heuri.spec import load_spec

from shared_cases import require_cases

CASES = require_cases(module_level=True)
ROWS = list(csv.DictReader(open(CASES / "MANIFEST.tsv", encoding="utf-8"), delimiter="\t"))
SPECS = {lang: load_spec(lang) for lang in ("en", "es", "fr")}


@pytest.mark.parametrize("row", [r for r in ROWS if r["language"] in SPECS], ids=lambda r: r["file"])
def test_manifest_case(row):
    path = CASES / row["file"]
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
    n_scores = n_games = 0
    for row in ROWS:
        if row["expect"] == "ok" and row["language"] in SPECS:
            r = replay_file(CASES / row["file"], SPECS[row["language"]], end_rule="auto")
            n_scores += len(r.steps)
            n_games += row["complete"] == "yes"
    assert n_games >= 70 and n_scores >= 2000


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
    assert r.warnings == [(3, "8G QXZ: QXZ not in the word list"), (4, "9G AE: QA, XE not in the word list")]
    assert r.steps[1].words == ["AE", "QA", "XE"]


def test_polish_has_no_pack():
    with pytest.raises(PackError):
        from heuri.pack import load_pack
        load_pack("pl")


def test_cli_replay_exit_codes(capsys):
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
    assert main(["replay", str(CASES / "pl" / "001.gcg"), "--lang", "pl"]) == 2
    assert "pl" in capsys.readouterr().err


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
