# heuri's pipeline: lexicons/<lang>/ (spec.toml + word list) → build/<lang>/ (a language pack).
#
#   snakemake --cores 8 es en fr      build three packs (a target per language folder)
#   snakemake --cores 8 all           every language under lexicons/
#
# Adding a language = adding lexicons/<lang>/spec.toml and its word list; nothing here.
# Rules only: the work is in pipeline/ (one module per artifact kind).
import sys
from pathlib import Path

PY = sys.executable
LANGS = sorted(p.parent.name for p in Path("lexicons").glob("*/spec.toml"))
for _d in sorted(Path("lexicons").iterdir()):
    if _d.is_dir() and not (_d / "spec.toml").is_file():
        print(f"warning: {_d}/ has no spec.toml: not a language folder, skipped", file=sys.stderr)

# Every artifact of a pack; the manifest depends on all of them.
PACK = ["tiles.parquet", "words.parquet", "anagrams.parquet", "septets.parquet",
        "pure_septets.parquet", "reduced_octets.parquet", "keys.json", "graph/meta.json",
        "bingo/meta.json", "manifest.json"]

# Each rule also depends on the code it runs, so that editing a step rebuilds what it made.
COMMON = ["pipeline/common.py", "runtime/heuri/spec.py"]


def code(*modules):
    return [f"pipeline/{m}.py" for m in modules] + COMMON


wildcard_constraints:
    lang="[A-Za-z0-9_-]+"


def wordlist(wc):
    import tomllib
    spec = tomllib.loads(Path(f"lexicons/{wc.lang}/spec.toml").read_text(encoding="utf-8"))
    return f"lexicons/{wc.lang}/" + spec.get("wordlist", {}).get("file", "words.txt.gz")


rule all:
    input: expand("build/{lang}/manifest.json", lang=LANGS)

# One target rule per language folder, so that `snakemake es en fr` works.
for _lang in LANGS:
    rule:
        name: _lang
        input: f"build/{_lang}/manifest.json", f"build/{_lang}/spec.toml"

rule tiles:
    input: spec="lexicons/{lang}/spec.toml", code=code("tiles")
    output: "build/{lang}/tiles.parquet"
    shell: "{PY} -m pipeline.tiles {input.spec} {output}"

rule words:
    input: spec="lexicons/{lang}/spec.toml", words=wordlist, code=code("words")
    output: words="build/{lang}/words.parquet", rejects="build/{lang}/rejects.json"
    shell: "{PY} -m pipeline.words {input.spec} {output.words} {output.rejects}"

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
    output: "build/{lang}/graph/arcs.npy", "build/{lang}/graph/root.npy", "build/{lang}/graph/meta.json"
    shell: "{PY} -m pipeline.wordgraph {input.spec} {input.words} build/{wildcards.lang}/graph"

rule bingo_index:
    input: spec="lexicons/{lang}/spec.toml", words="build/{lang}/words.parquet", keydir="build/{lang}/keys",
           code=code("bingo_index")
    output: "build/{lang}/bingo/meta.json"
    shell: "{PY} -m pipeline.bingo_index {input.spec} build/{wildcards.lang}"

rule manifest:
    input:
        spec="lexicons/{lang}/spec.toml",
        artifacts=lambda wc: [f"build/{wc.lang}/{a}" for a in PACK if a != "manifest.json"],
        rejects="build/{lang}/rejects.json",
        code=code("manifest"),
    output: manifest="build/{lang}/manifest.json", spec="build/{lang}/spec.toml"
    shell: "{PY} -m pipeline.manifest {input.spec} build/{wildcards.lang} {output.manifest}"
