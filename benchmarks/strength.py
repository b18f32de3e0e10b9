"""The standard strength table: heuri's engines against the real peers, paired seeds.

    .venv/bin/python benchmarks/strength.py --games 1000 --jobs 2
    .venv/bin/python benchmarks/strength.py --games 200 --rows en:heuri3:magpie fr:heuri2:magpie
    .venv/bin/python benchmarks/strength.py --seed 3 --games 2000 --rows fr@FRA20:heuri5:magpie en@TWL14:heuri5:magpie

Rows (default): heuri3, heuri2 and greedy against Quackle's Speedy Player in Spanish, against
MAGPIE's static player with the CSW21 leave table in English and with MAGPIE-DATA's FRA20
leave table in French.

A row ``LANG@LEXICON:ENGINE:PEER`` plays on a tournament lexicon: heuri answers with the pack
``heuri lexicon import LEXICON.kwg --lang LANG`` built (``heuri --lexicon LEXICON``), and MAGPIE
reads the same file, ``data/lexica/LEXICON.kwg``, with that lexicon's leave table
``LEXICON.klv2`` (both from MAGPIE-DATA): no export step, one word list for both. Every row is a ``heuri match`` (heuri.match.run_match: the same bags
both ways, resumable) into ``matches/strength/<lang>/<engine>-vs-<peer>/``; the table gives
heuri's win rate with its 95 % Wilson interval, the mean spread, the exchanges per game of
both sides and the forfeits (an engine that crashes or answers illegally forfeits that game;
forfeits are counted, never dropped).

The peers are not part of heuri: benchmarks/README.md (*Peers*) says what they are and where.
They are looked for in ``$HEURI_PEERS`` (default ``~/.cache/heuri-peers``: ``quackle_driver``,
``quackle/run``, ``magpie/bin/magpie`` and its ``data/lexica``) and their SIU adapters in
``$HEURI_PEER_ADAPTERS`` (default ``shared/peers`` beside the repository). A row whose peer
is missing is skipped, and the script says which file it did not find.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PEERS = Path(os.environ.get("HEURI_PEERS", Path.home() / ".cache" / "heuri-peers"))
ADAPTERS = Path(os.environ.get("HEURI_PEER_ADAPTERS", REPO.parent / "shared" / "peers"))
DEFAULT_ROWS = [f"{lang}:{engine}:{peer}" for lang, peer in (("es", "quackle"), ("en", "magpie"), ("fr", "magpie"))
                for engine in ("heuri3", "heuri2", "greedy")]
MAGPIE_LEX = {"en": ("CSW_SOWPODS", "english", "CSW21"), "fr": ("FRA_NPM", "french", "FRA20")}
#: MAGPIE's letter distribution of each language (data/letterdistributions/<name>.csv)
MAGPIE_LD = {"en": "english", "fr": "french", "de": "german", "pl": "polish", "nl": "dutch", "ca": "catalan"}


def peer_command(lang: str, peer: str, lexicon: str | None = None) -> tuple[str | None, dict, str]:
    """``(siu command line or None, SIU options, description or the reason it is missing)``;
    *lexicon*: MAGPIE plays ``data/lexica/<lexicon>.kwg`` with ``<lexicon>.klv2``."""
    py = shlex.quote(sys.executable)
    if lexicon is not None:
        if peer != "magpie" or lang not in MAGPIE_LD:
            return None, {}, f"a lexicon row needs MAGPIE and a language it has a distribution for ({lang}@{lexicon})"
        lexica = PEERS / "magpie" / "data" / "lexica"
        need = [ADAPTERS / "siu_magpie.py", PEERS / "magpie" / "bin" / "magpie",
                lexica / f"{lexicon}.kwg", lexica / f"{lexicon}.klv2"]
        missing = [str(p) for p in need if not p.exists()]
        if missing:
            return None, {}, "not found: " + ", ".join(missing)
        cmd = (f"{py} {shlex.quote(str(need[0]))} --magpie-dir {shlex.quote(str(PEERS / 'magpie'))} "
               f"--lexicon {lexicon} --ld {MAGPIE_LD[lang]} --leaves {lexicon} --wmp false")
        return f"siu:{cmd}", {}, f"MAGPIE static player on {lexicon}.kwg, {lexicon} leave table"
    if peer == "quackle":
        need = [ADAPTERS / "siu_quackle.py", PEERS / "quackle_driver", PEERS / "quackle" / "run" / "lexica"]
        missing = [str(p) for p in need if not p.exists()]
        if lang == "es" and not (PEERS / "quackle" / "run" / "lexica" / "spanish.dawg").exists():
            missing.append(str(PEERS / "quackle" / "run" / "lexica" / "spanish.dawg"))
        if missing:
            return None, {}, "not found: " + ", ".join(missing)
        lexicon = {"es": "spanish", "en": "CSW_SOWPODS", "fr": "FRA_NPM"}[lang]
        opts = {"Player": "Speedy Player", "Lexicon": lexicon, "DataPath": str(PEERS / "quackle" / "run"),
                "QuackleDriver": str(PEERS / "quackle_driver")}
        return f"siu:{py} {shlex.quote(str(need[0]))}", opts, "Quackle Speedy Player"
    if peer == "magpie":
        if lang not in MAGPIE_LEX:
            return None, {}, f"no MAGPIE leave table configured for {lang}"
        lex, ld, leaves = MAGPIE_LEX[lang]
        need = [ADAPTERS / "siu_magpie.py", PEERS / "magpie" / "bin" / "magpie",
                PEERS / "magpie" / "data" / "lexica" / f"{lex}.kwg", PEERS / "magpie" / "data" / "lexica" / f"{lex}.klv2"]
        missing = [str(p) for p in need if not p.exists()]
        if missing:
            return None, {}, "not found: " + ", ".join(missing)
        cmd = (f"{py} {shlex.quote(str(need[0]))} --magpie-dir {shlex.quote(str(PEERS / 'magpie'))} "
               f"--lexicon {lex} --ld {ld} --leaves {lex} --wmp true")
        return f"siu:{cmd}", {}, f"MAGPIE static player, {leaves} leave table"
    return None, {}, f"unknown peer {peer!r} (quackle or magpie)"


def run_row(row: str, games: int, jobs: int, seed: int, out_root: Path, progress: bool) -> dict:
    from heuri.match import run_match

    try:
        lang, engine, peer = row.split(":")
    except ValueError:
        return {"row": row, "skipped": "expected LANG[@LEXICON]:ENGINE:PEER, e.g. en:heuri3:magpie"}
    lang, _, lexicon = lang.partition("@")
    cmd, opts, what = peer_command(lang, peer, lexicon or None)
    if cmd is None:
        return {"row": row, "skipped": what}
    out = out_root / (f"{lang}-{lexicon}" if lexicon else lang) / f"{engine}-vs-{peer}"
    t0 = time.perf_counter()
    before = os.environ.get("HEURI_LEXICON")
    if lexicon:  # heuri's side: the pack of that lexicon, in this process and its workers
        os.environ["HEURI_LEXICON"] = lexicon
    try:
        res = run_match(lang, engine, cmd, games, seed=seed, jobs=jobs, out=out, progress=progress,
                        engines={"p2": {"options": opts}} if opts else None)
    except Exception as e:  # a peer that cannot even start: say which, and go on with the rest
        return {"row": row, "skipped": f"{what}: the match stopped: {e}"}
    finally:
        if before is None:
            os.environ.pop("HEURI_LEXICON", None)
        else:
            os.environ["HEURI_LEXICON"] = before
    s = res.summary
    X, Y = s["stats_p1"], s["stats_p2"]
    return {"row": row, "lang": f"{lang}@{lexicon}" if lexicon else lang, "engine": engine, "peer": what, "games": s["games"],
            "win_rate": s["win_rate"], "ci": list(s["ci"]), "spread": s["mean_spread"],
            "exchanges": [X["exchanges_per_game"], Y["exchanges_per_game"]],
            "bingos": [X["bingos_per_game"], Y["bingos_per_game"]],
            "forfeits": [X["forfeits"], Y["forfeits"]], "out": str(out),
            "minutes": (time.perf_counter() - t0) / 60,
            "command": (f"heuri match --lang {lang}" + (f" --lexicon {lexicon}" if lexicon else "") + f" --p1 {engine} --p2 {shlex.quote(cmd)} "
                        + " ".join(f"--p2-option {shlex.quote(f'{k}={v}')}" for k, v in opts.items())
                        + f" --games {games} --jobs {jobs} --seed {seed} --out {out}")}


def main(argv=None) -> int:
    from rich.console import Console
    from rich.table import Table

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", nargs="+", default=DEFAULT_ROWS, metavar="LANG:ENGINE:PEER",
                    help="rows to play (default: the standard table)")
    ap.add_argument("--games", type=int, default=1000, help="games per row (paired: an even number; default 1000)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(REPO / "matches" / "strength"))
    ap.add_argument("--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    con = Console() if sys.stdout.isatty() else Console(width=160)
    con.print(f"peers: {PEERS}; adapters: {ADAPTERS}", highlight=False)
    results = []
    for row in args.rows:
        r = run_row(row, args.games, args.jobs, args.seed, Path(args.out), not args.quiet)
        results.append(r)
        if "skipped" in r:
            con.print(f"[yellow]skipped[/yellow] {row}: {r['skipped']}", highlight=False)
    t = Table(title=f"heuri against the peers ({args.games} games a row, paired seeds, seed {args.seed})")
    for col in ("lang", "heuri", "peer", "games", "heuri's win rate [95 % Wilson]", "spread",
                "exchanges/game (heuri, peer)", "forfeits (heuri, peer)", "min"):
        t.add_column(col, justify="left" if col in ("lang", "heuri", "peer") else "right")
    for r in results:
        if "skipped" in r:
            t.add_row(*r["row"].split(":")[:1], r["row"].split(":")[1] if ":" in r["row"] else "", "skipped",
                      "", "", "", "", "", "")
            continue
        lo, hi = r["ci"]
        t.add_row(r["lang"], r["engine"], r["peer"], str(r["games"]),
                  f"{100 * r['win_rate']:.1f} % [{100 * lo:.1f}, {100 * hi:.1f}]", f"{r['spread']:+.1f}",
                  f"{r['exchanges'][0]:.2f}, {r['exchanges'][1]:.2f}", f"{r['forfeits'][0]}, {r['forfeits'][1]}",
                  f"{r['minutes']:.1f}")
    con.print(t)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "summary.json").write_text(json.dumps(results, indent=2) + "\n")
    con.print(f"summary: {Path(args.out) / 'summary.json'} (with each row's heuri match command)", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
