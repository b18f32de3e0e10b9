"""Loading packs: memory-mapped arrays, clear errors for missing and stale packs."""
import json
import shutil

import numpy as np
import pytest

from heuri import cli
from heuri.errors import PackError
from heuri.pack import load_pack


def test_arrays_are_memory_mapped(pack_es):
    assert isinstance(pack_es.keys.counts, np.memmap)
    assert pack_es.keys.counts.shape == (290_308, 29)
    assert pack_es.keys.counts.dtype == np.uint8
    assert int(pack_es.keys.counts.sum(axis=1).max()) == 7


def test_key_sigma_matches_values(pack_en):
    vals = pack_en.spec.value_vector()
    k = pack_en.keys
    assert np.array_equal(np.asarray(k.counts[:1000]).astype(int) @ vals, np.asarray(k.sigma[:1000]))


def test_unknown_language():
    with pytest.raises(PackError, match="no language 'xx'"):
        load_pack("xx")


def test_language_code_in_capitals(pack_en):
    # --lang EN names the en pack (codes are lower case); its word count is the pack's
    assert load_pack("EN").spec.code == "en"
    assert load_pack("EN").manifest["counts"] == pack_en.manifest["counts"]


def test_missing_pack_says_how_to_build(tmp_path, monkeypatch):
    monkeypatch.setenv("HEURI_BUILD", str(tmp_path))
    with pytest.raises(PackError, match="snakemake --cores 2 es"):
        load_pack("es")


def test_stale_pack(tmp_path, monkeypatch, pack_fr):
    shutil.copytree(pack_fr.root, tmp_path / "fr")
    m = json.loads((tmp_path / "fr" / "manifest.json").read_text())
    m["inputs"]["wordlist"]["sha256"] = "0" * 64
    (tmp_path / "fr" / "manifest.json").write_text(json.dumps(m))
    monkeypatch.setenv("HEURI_BUILD", str(tmp_path))
    with pytest.raises(PackError, match=r"stale fr pack: .*words\.txt\.gz changed.*snakemake --cores 2 fr"):
        load_pack("fr")
    m["pack_format"] = 999
    (tmp_path / "fr" / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(PackError, match="stale fr pack"):
        load_pack("fr")


def test_incomplete_pack(tmp_path, pack_fr):
    shutil.copytree(pack_fr.root, tmp_path / "fr")
    (tmp_path / "fr" / "keys" / "sigma.npy").unlink()
    with pytest.raises(PackError, match=r"incomplete fr pack, missing \['keys/sigma.npy'\]"):
        load_pack(tmp_path / "fr")


def test_cli_packs(capsys):
    assert cli.main(["packs"]) == 0
    out = capsys.readouterr().out
    assert "636,598" in out and "267,751" in out and "311,495" in out
