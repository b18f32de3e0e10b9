"""A first run says that it compiles the kernels, instead of a silent minute."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import heuri

RUNTIME = Path(heuri.__file__).resolve().parents[1]


def test_a_cold_cache_is_announced_once(tmp_path):
    """A fresh copy of the package (no ``__pycache__``) has no compiled kernels:
    kernels_cached says False and the notice goes to the stream given."""
    copy = tmp_path / "runtime"
    shutil.copytree(RUNTIME / "heuri", copy / "heuri", ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import sys; from heuri.apps.cli import kernels_cached, compile_notice; "
            "print(kernels_cached()); print(compile_notice(sys.stdout))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    assert out[0] == "False"
    assert out[1].startswith("heuri: compiling the move generator and the evaluator, once")
    assert out[2] == "True"
