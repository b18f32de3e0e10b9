"""The ``heuri`` command.

Each subcommand is a small function ``cmd_<name>(args)``; its parser is declared in
``build_parser``. Errors a user can cause (a bad CGP, a missing pack, a malformed GCG line)
are HeuriError/ValueError and print as one line ``heuri: error: ...`` with exit status 2;
anything else is a bug and keeps its traceback.
"""
from __future__ import annotations

import argparse
import sys

from . import __version__
from .errors import HeuriError


# -- packs ------------------------------------------------------------------------------
def cmd_packs(args) -> int:
    """List the built language packs with their counts."""
    from rich.console import Console
    from rich.table import Table

    from .pack import build_root, list_packs

    packs = list_packs()
    if not packs:
        print(f"no built packs under {build_root()}; build them with: snakemake --cores 2 es en fr")
        return 1
    t = Table(title=f"language packs in {build_root()}")
    for col in ("lang", "lexicon", "words", "septets", "pure septets", "reduced octets", "key set", "status"):
        t.add_column(col, justify="right" if col not in ("lang", "lexicon", "status") else "left")
    for p in packs:
        c = p["counts"]
        t.add_row(p["language"], p["lexicon"], *(f"{c.get(k, 0):,}" for k in (
            "words", "septets", "pure_septets", "reduced_octets", "keyset")), p["status"])
    Console().print(t)
    return 0


# -- siu ----------------------------------------------------------------------------------
def cmd_siu(args) -> int:
    """Speak the SIU engine protocol on stdin/stdout (see heuri.siu)."""
    from .siu import HeuriBackend, serve

    log = open(args.log, "a", encoding="utf-8") if args.log else None
    try:
        return serve(HeuriBackend(args.lang), log=log)
    finally:
        if log is not None:
            log.close()


# -- parser -----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="heuri", description="Heuri Scrabble engine (es, en, fr, ...)")
    ap.add_argument("--version", action="version", version=f"heuri {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("packs", help="list the built language packs and their counts")
    p.set_defaults(func=cmd_packs)

    p = sub.add_parser("siu", help="run heuri as an SIU engine on stdin/stdout (for GUIs and match runners)")
    p.add_argument("--lang", default="es", help="initial Lexicon option: a built pack (es, en, fr) or a pack folder")
    p.add_argument("--log", default=None, help="append a transcript of the session ('> ' in, '< ' out) to this file")
    p.set_defaults(func=cmd_siu)

    # Further subcommands register here (moves, replay, show, best, match, siu).
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except HeuriError as e:
        print(f"heuri: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("heuri: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
