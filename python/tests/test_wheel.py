"""The wheel (pyproject.toml, setup.py): built with the CI bundle set
(FLASH_WHEEL_BUNDLES=ci: one small bundle per arch, seconds to compile),
installed with --no-deps into a fresh venv, imported from outside the source
tree: the runtime is the wheel's libflash_runtime.so, the bundles its own,
and a missing kernel's error names the command that compiles it."""

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_wheel_builds_installs_and_finds_its_bundles(tmp_path):
    for needed in ("build/bin/flash-opt", "build/lib/libflash_runtime.so"):
        if not (ROOT / needed).exists():
            pytest.skip(f"{needed} not built")
    env = dict(os.environ, FLASH_WHEEL_BUNDLES="ci")
    env.pop("FLASH_WHEEL_BUNDLE_DIRS", None)
    env.pop("FLASH_RUNTIME_LIB", None)
    env.pop("PYTHONPATH", None)
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(tmp_path / "dist")],
                   check=True, env=env, cwd=tmp_path)
    wheels = list((tmp_path / "dist").glob("flash_mlir-*-py3-none-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheels[0])],
                   check=True, env=env, cwd=tmp_path)
    script = textwrap.dedent("""
        import os, flash_mlir
        from flash_mlir.runtime import capi, KernelLibrary
        import flash_mlir.torch as ft
        capi.lib()
        where = os.path.dirname(flash_mlir.__file__)
        assert "site-packages" in where, where
        assert os.path.exists(os.path.join(where, "lib", "libflash_runtime.so"))
        lib = KernelLibrary(ft.PACKAGE_BUNDLES)
        print(sorted((b.arch, b.dtype, b.head_dim) for b in lib.all))
        try:
            lib.find("bf16", 128, True, False, compute_capability=90)
        except ValueError as e:
            print(e)
    """)
    out = subprocess.run([str(python), "-c", script], check=True, env=env, cwd=tmp_path,
                         capture_output=True, text=True).stdout
    assert "('sm_80', 'bf16', 64)" in out and "('sm_90a', 'bf16', 64)" in out
    assert ("python3 -m flash_mlir.compile --out " in out and "--arch sm_90a --dtypes bf16 "
            "--head-dims 128 --causal yes --lse no --ops forward" in out), out
