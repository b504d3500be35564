"""The wheel's build step (pyproject.toml holds the metadata).

After the Python files, it puts into the wheel's flash_mlir/:
- bundles/: kernel bundles compiled by `python3 -m flash_mlir.compile` with
  flash-opt ($FLASH_OPT, default build/bin/flash-opt), chosen by
  $FLASH_WHEEL_BUNDLES:
    full (default)  sm_90a forward and backward (rank-3 maps, and their rank-4
                    twins as the variant "batch_maps" for B×N×H×D views),
                    sm_80 forward and backward (and their strided twins, the
                    variant "strided", for B×N×H×D views; cubins sm_80,
                    sm_86, sm_89, sm_90), bf16 and f16, D 64 and 128
    ci              one small bundle per arch (bf16, D 64, forward, not causal,
                    no LSE): what CI's wheel test builds in seconds
  or, with $FLASH_WHEEL_BUNDLE_DIRS (directories separated by ':'), the plans
  of bundles compiled before, copied (their .json, .ptx and .cubin files).
- lib/libflash_runtime.so: $FLASH_RUNTIME_LIB, default build/lib/ of this tree
  (flash_mlir.runtime.capi loads it from there first).
The wheel holds a native library: it is tagged py3-none-<platform>.
"""

import glob
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    bdist_wheel = None

ROOT = os.path.dirname(os.path.abspath(__file__))

FULL = [
    ["--arch", "sm_90a", "--dtypes", "bf16,f16", "--head-dims", "64,128",
     "--ops", "forward,backward", "--deterministic", "no", "--batch-maps", "variant"],
    ["--arch", "sm_80", "--cubin-archs", "sm_80,sm_86,sm_89,sm_90", "--dtypes", "bf16,f16",
     "--head-dims", "64,128", "--ops", "forward,backward", "--deterministic", "no",
     "--strides", "variant"],
]
CI = [
    ["--arch", "sm_90a", "--dtypes", "bf16", "--head-dims", "64", "--causal", "no",
     "--lse", "no", "--ops", "forward"],
    ["--arch", "sm_80", "--dtypes", "bf16", "--head-dims", "64", "--causal", "no",
     "--lse", "no", "--ops", "forward"],
]
PLAN_FILES = ("*.json", "*.ptx", "*.cubin")


class BuildWithBundles(build_py):
    def run(self):
        super().run()
        package = os.path.join(self.build_lib, "flash_mlir")
        bundles = os.path.join(package, "bundles")
        shutil.rmtree(bundles, ignore_errors=True)
        os.makedirs(bundles)
        prebuilt = os.environ.get("FLASH_WHEEL_BUNDLE_DIRS")
        if prebuilt:
            for directory in prebuilt.split(":"):
                for pattern in PLAN_FILES:
                    for path in glob.glob(os.path.join(directory, pattern)):
                        shutil.copy(path, bundles)
        else:
            which = os.environ.get("FLASH_WHEEL_BUNDLES", "full")
            if which not in ("full", "ci"):
                sys.exit(f"FLASH_WHEEL_BUNDLES must be full or ci, got {which!r}")
            flash_opt = os.environ.get("FLASH_OPT", os.path.join(ROOT, "build", "bin", "flash-opt"))
            if not os.path.exists(flash_opt):
                sys.exit(f"{flash_opt} not found: build it (bash scripts/build.sh) or set "
                         "FLASH_OPT, or give compiled bundles in FLASH_WHEEL_BUNDLE_DIRS")
            env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
            for args in (FULL if which == "full" else CI):
                subprocess.check_call([sys.executable, "-m", "flash_mlir.compile", "--out",
                                       bundles, "--flash-opt", flash_opt] + args, env=env)
            for path in glob.glob(os.path.join(bundles, "*")):
                if not any(glob.fnmatch.fnmatch(path, "*" + p[1:]) for p in PLAN_FILES):
                    os.remove(path)  # the compile step's .mlir and logs
        if not glob.glob(os.path.join(bundles, "*.json")):
            sys.exit("no bundles for the wheel (see setup.py)")
        runtime = os.environ.get("FLASH_RUNTIME_LIB",
                                 os.path.join(ROOT, "build", "lib", "libflash_runtime.so"))
        if not os.path.exists(runtime):
            sys.exit(f"{runtime} not found: build it (bash scripts/build.sh) or set "
                     "FLASH_RUNTIME_LIB")
        os.makedirs(os.path.join(package, "lib"), exist_ok=True)
        shutil.copy(runtime, os.path.join(package, "lib", "libflash_runtime.so"))


commands = {"build_py": BuildWithBundles}
if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return ("py3", "none") + super().get_tag()[2:]

    commands["bdist_wheel"] = PlatformWheel

# build/ is CMake's: setuptools builds under build/python-wheel/.
setup(cmdclass=commands, options={"build": {"build_base": "build/python-wheel"},
                                  "egg_info": {"egg_base": "build/python-wheel"}})
