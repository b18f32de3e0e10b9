# heuri's pipeline: lexicons/<lang>/ (spec.toml + word list) → build/<lang>/ (a language pack).
#
#   snakemake --cores 8 es en fr      build three packs (a target per language folder)
#   snakemake --cores 8 all           every language under lexicons/
#
# Adding a language = adding lexicons/<lang>/spec.toml and its word list; nothing here.
#
#   snakemake --cores 2 build/fr-FRA20/manifest.json --config lexicon_file=/path/to/FRA20.kwg
#                                     a pack from a lexicon file a player has (rule import_lexicon)
# Rules only: the work is in pipeline/ (one module per artifact kind).
import sys
from pathlib import Path

PY = sys.executable
LANGS = sorted(p.parent.name for p in Path("lexicons").glob("*/spec.toml"))
for _d in sorted(Path("lexicons").iterdir()):
    if _d.is_dir() and not (_d / "spec.toml").is_file():
        print(f"warning: {_d}/ has no spec.toml: not a language folder, skipped", file=sys.stderr)

# The pack's steps, one list for the Snakefile, pipeline/build.py and the loader
# (heuri.core.pack.PACK_STEPS): each rule below is one step, named as it is there, and the
# manifest rule waits on the file each step is tracked by.
sys.path.insert(0, str(Path("runtime").resolve()))
from heuri.core.pack import PACK_STEPS

PACK = [step.files[0] for step in PACK_STEPS]

# Each rule also depends on the code it runs, so that editing a step rebuilds what it made.
COMMON = ["pipeline/common.py", "runtime/heuri/core/spec.py"]


def code(*modules):
    return [f"pipeline/{m}.py" for m in modules] + COMMON


wildcard_constraints:
    lang="[A-Za-z0-9_-]+"


def _wordlist_table(lang):
    import tomllib
    spec = tomllib.loads(Path(f"lexicons/{lang}/spec.toml").read_text(encoding="utf-8"))
    return spec.get("wordlist", {})


def wordlist(wc):
    """The word list the words step reads: the committed list, or for a Hunspell
    dictionary ([wordlist] source = "hunspell") the list the hunspell step expands."""
    wl = _wordlist_table(wc.lang)
    if wl.get("source") == "hunspell":
        return f"build/{wc.lang}/hunspell/words.txt.gz"
    return f"lexicons/{wc.lang}/" + wl.get("file", "words.txt.gz")


def hunspell_files(wc):
    wl = _wordlist_table(wc.lang)
    return {"dic": f"lexicons/{wc.lang}/{wl.get('dic', 'index.dic')}",
            "aff": f"lexicons/{wc.lang}/{wl.get('aff', 'index.aff')}"}


def hunspell_report(wc):
    return [f"build/{wc.lang}/hunspell/report.json"] if _wordlist_table(wc.lang).get("source") == "hunspell" else []


# A spec without a bundled word list ([wordlist] source = "import")
# has no default pack: its packs come from lexicon files (rule import_lexicon).
LANGS = [lang for lang in LANGS if _wordlist_table(lang).get("source") != "import"]


rule all:
    input: expand("build/{lang}/manifest.json", lang=LANGS)

# One target rule per language folder, so that `snakemake es en fr` works: the pack and its
# win-probability table.
for _lang in LANGS:
    rule:
        name: _lang
        input: f"build/{_lang}/manifest.json", f"build/{_lang}/spec.toml", f"build/{_lang}/win_probability.parquet"

rule tiles:
    input: spec="lexicons/{lang}/spec.toml", code=code("tiles")
    output: "build/{lang}/tiles.parquet"
    shell: "{PY} -m pipeline.tiles {input.spec} {output}"

# A Hunspell dictionary (.dic + .aff) → the surface forms a Hunspell checker accepts
# (pipeline/hunspell.py: Debian's unmunch and hunspell -G, streamed).
rule hunspell:
    input: unpack(hunspell_files), spec="lexicons/{lang}/spec.toml", code=code("hunspell")
    output: words="build/{lang}/hunspell/words.txt.gz", report="build/{lang}/hunspell/report.json"
    shell: "{PY} -m pipeline.hunspell {input.spec} {output.words} {output.report}"

rule words:
    input: spec="lexicons/{lang}/spec.toml", words=wordlist, code=code("words")
    output: words="build/{lang}/words.parquet", rejects="build/{lang}/rejects.json"
    shell: "{PY} -m pipeline.words {input.spec} {output.words} {output.rejects} --wordlist {input.words}"

rule anagrams:
    input: words="build/{lang}/words.parquet", code=code("anagrams")
    output: "build/{lang}/anagrams.parquet"
    shell: "{PY} -m pipeline.anagrams {input.words} {output}"

rule keys:
    input: spec="lexicons/{lang}/spec.toml", words="build/{lang}/words.parquet", code=code("keys")
    output:
        "build/{lang}/septets.parquet", "build/{lang}/pure_septets.parquet",
        "build/{lang}/reduced_octets.parquet", "build/{lang}/keys.json",
        directory("build/{lang}/keys"),
    shell: "{PY} -m pipeline.keys {input.spec} {input.words} build/{wildcards.lang}"

rule wordgraph:
    input: spec="lexicons/{lang}/spec.toml", words="build/{lang}/words.parquet", code=code("wordgraph")
    output: "build/{lang}/graph/gaddag.npy", "build/{lang}/graph/root.npy", "build/{lang}/graph/meta.json"
    shell: "{PY} -m pipeline.wordgraph {input.spec} {input.words} build/{wildcards.lang}/graph"

rule bingo_index:
    input: spec="lexicons/{lang}/spec.toml", words="build/{lang}/words.parquet", keydir="build/{lang}/keys",
           code=code("bingo_index")
    output: "build/{lang}/bingo/meta.json"
    shell: "{PY} -m pipeline.bingo_index {input.spec} build/{wildcards.lang}"

# The hashes of the alphagrams of the words of rack size - 1 tiles or more (heuri.movegen's
# best-N bounds: spans of all, or all but one or two, of the rack's tiles through board tiles).
rule long_alphagrams:
    input: spec="lexicons/{lang}/spec.toml", words="build/{lang}/words.parquet", code=code("long_alphagrams", "keys")
    output: "build/{lang}/long_alphagrams/zobrist.npy", "build/{lang}/long_alphagrams/hashes.npy",
            "build/{lang}/long_alphagrams/meta.json"
    shell: "{PY} -m pipeline.long_alphagrams {input.spec} {input.words} build/{wildcards.lang}/long_alphagrams"

# Each tile's scoring power: the points it adds to the best non-bingo move, measured with the
# move generator on the boards of greedy self-play games (heuri.evaluate's Heuri5).
rule tile_power:
    input: spec="lexicons/{lang}/spec.toml", graph="build/{lang}/graph/meta.json", keyset="build/{lang}/keys.json",
           code=code("tile_power") + ["runtime/heuri/core/movegen.py"]
    output: "build/{lang}/tile_power.parquet", "build/{lang}/tile_power.json"
    shell: "{PY} -m pipeline.tile_power {input.spec} build/{wildcards.lang}"

rule manifest:
    input:
        spec="lexicons/{lang}/spec.toml",
        artifacts=lambda wc: [f"build/{wc.lang}/{a}" for a in PACK if a != "manifest.json"],
        rejects="build/{lang}/rejects.json",
        hunspell=hunspell_report,
        words=wordlist,
        code=code("manifest") + ["runtime/heuri/core/pack.py"],  # PACK_FORMAT
    output: manifest="build/{lang}/manifest.json", spec="build/{lang}/spec.toml"
    shell: "{PY} -m pipeline.manifest {input.spec} build/{wildcards.lang} {output.manifest} --wordlist {input.words}"


# The chance to win given the spread and the bag, from heuri2's self-play on the built pack
# (pipeline/win_probability.py; heuri.eval.win_probability): the simulation's leaf values.
# Not a pack step: a lexicon imported for a language reads its language's table.
#   snakemake --cores 2 build/en/win_probability.parquet --config winprob_games=2000
rule win_probability:
    wildcard_constraints: lang=r"[a-z]{2,3}"
    input: manifest="build/{lang}/manifest.json",
           code=code("win_probability") + ["runtime/heuri/eval/win_probability.py"]
    output: "build/{lang}/win_probability.parquet", "build/{lang}/win_probability.json"
    params: games=int(config.get("winprob_games", 400))
    shell: "{PY} -m pipeline.win_probability build/{wildcards.lang} --games {params.games}"


for _step in PACK_STEPS:  # a step of the list without its rule here stops: "Rule X is not defined"
    getattr(rules, _step.name)


# ---- self-play matches (heuri.match) ---------------------------------------------------------
#
#   snakemake --cores 8 matches/es/heuri3-vs-greedy.parquet
#   snakemake --cores 8 matches/es/heuri3-vs-greedy.parquet --config match_games=1000 match_shard=50
#   snakemake --executor slurm --jobs 100 matches/es/heuri3-vs-greedy.parquet    (a cluster)
#
# A match of match_games games (default 1000) is cut into shards of match_shard games (default
# 50, rounded up to an even number so that both games of a pair stay together); each shard is
# one single-process job `heuri match --first-game K --games S`, writing its game records and
# rows into matches/<lang>/<p1>-vs-<p2>/ (shared by the shards, resumable) and its table to
# shard-KKK.parquet; the merge rule joins the shards into matches/<lang>/<p1>-vs-<p2>.parquet
# and prints the summary. Engine names: heuri.players.ENGINES (greedy, heuri1..3, heuri3-noend).
MATCH_GAMES = int(config.get("match_games", 1000))
MATCH_SHARD = int(config.get("match_shard", 50))
MATCH_SHARD += MATCH_SHARD % 2
MATCH_SEED = int(config.get("match_seed", 1))
MATCH_SHARDS = (MATCH_GAMES + MATCH_SHARD - 1) // MATCH_SHARD


def _shard_games(k):
    return min(MATCH_SHARD, MATCH_GAMES - k * MATCH_SHARD)


rule match_shard:
    wildcard_constraints:
        p1=r"[A-Za-z0-9_+.]+(?:-[A-Za-z0-9_+.]+)*", p2=r"[A-Za-z0-9_+.]+(?:-[A-Za-z0-9_+.]+)*", k=r"\d+",
    input: pack="build/{lang}/manifest.json"
    output: "matches/{lang}/{p1}-vs-{p2}/shard-{k}.parquet"
    params:
        first=lambda wc: int(wc.k) * MATCH_SHARD,
        games=lambda wc: _shard_games(int(wc.k)),
    threads: 1
    shell:
        "{PY} -m heuri match --lang {wildcards.lang} --p1 {wildcards.p1} --p2 {wildcards.p2} "
        "--games {params.games} --first-game {params.first} --seed {MATCH_SEED} --jobs 1 "
        "--out matches/{wildcards.lang}/{wildcards.p1}-vs-{wildcards.p2} --table {output} --quiet"

rule match:
    wildcard_constraints:
        p1=r"[A-Za-z0-9_+.]+(?:-[A-Za-z0-9_+.]+)*", p2=r"[A-Za-z0-9_+.]+(?:-[A-Za-z0-9_+.]+)*",
    input:
        lambda wc: [f"matches/{wc.lang}/{wc.p1}-vs-{wc.p2}/shard-{k:03d}.parquet" for k in range(MATCH_SHARDS)]
    output: "matches/{lang}/{p1}-vs-{p2}.parquet"
    shell: "{PY} -m heuri.match merge {output} {input}"


# ---- a pack from a lexicon file a player has (pipeline/import_lexicon.py; docs/lexicons.md) ----
#
#   snakemake --cores 2 build/fr-FRA20/manifest.json --config lexicon_file=/path/to/FRA20.kwg
#
# The same as `heuri lexicon import /path/to/FRA20.kwg --lang fr --name FRA20`: the pack
# build/<lang>-<NAME>/ of the file (KWG, Quackle DAWG or plain list), built by the steps above
# in one job; a NAME already built from another file is refused.
def _lexicon_file(wc):
    if not config.get("lexicon_file"):
        raise ValueError(f"build/{wc.lang}-{wc.name}: give the lexicon file: --config lexicon_file=PATH")
    return config["lexicon_file"]


rule import_lexicon:
    wildcard_constraints: lang="[a-z]{2,3}", name="[A-Za-z0-9][A-Za-z0-9_.]*"
    input: file=_lexicon_file, spec="lexicons/{lang}/spec.toml",
           code=code("import_lexicon", "lexicon_file", "kwg", "dawg", "build")
    output: "build/{lang}-{name}/manifest.json"
    shell: "{PY} -m pipeline.import_lexicon {input.file} --lang {wildcards.lang} --name {wildcards.name}"

ruleorder: import_lexicon > manifest
