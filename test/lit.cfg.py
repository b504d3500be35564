# lit configuration for the FlashMLIR regression tests.
import os
import shutil

import lit.formats

config.name = "FlashMLIR"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.flash_obj_root, "test")

# Tools: ours first, then LLVM 22's, then CUDA's (ptxas for PTX tests).
path = [config.flash_tools_dir, config.llvm_tools_dir, "/usr/local/cuda/bin",
        config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)
config.environment["PYTHONPATH"] = os.path.join(config.flash_src_root, "python")
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

# Debian's python3 has numpy; the CPU integration tests need it.
python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"
config.substitutions.append(("%python", python))
runner_libs = ",".join(os.path.join(config.mlir_lib_dir, lib) for lib in
                       ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"])
config.substitutions.append(
    ("%mlir_runner",
     "mlir-runner -e main -entry-point-result=void -O3 -shared-libs=" + runner_libs))

# Tests that assemble PTX need ptxas.
if shutil.which("ptxas", path=config.environment["PATH"]):
    config.available_features.add("ptxas")

# Tests that read SASS need cuobjdump and the nvdisasm it calls (not in CUDA's
# packages here; PyPI's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm have
# them): $CUOBJDUMP or cuobjdump on PATH, $NVDISASM_PATH or nvdisasm on PATH.
cuobjdump = os.environ.get("CUOBJDUMP") or shutil.which(
    "cuobjdump", path=config.environment["PATH"])
nvdisasm_dir = os.environ.get("NVDISASM_PATH")
if not nvdisasm_dir:
    nvdisasm = shutil.which("nvdisasm", path=config.environment["PATH"])
    nvdisasm_dir = os.path.dirname(nvdisasm) if nvdisasm else None
if cuobjdump and nvdisasm_dir:
    config.environment["CUOBJDUMP"] = cuobjdump
    config.environment["NVDISASM_PATH"] = nvdisasm_dir
    config.available_features.add("cuobjdump")

# The embedding example (examples/embedding, docs/embedding.md): its build
# script and libflash_runtime.so (built only where CUDA's headers are).
config.substitutions.append(("%flash_src", config.flash_src_root))
config.substitutions.append(("%flash_lib", os.path.join(config.flash_obj_root, "lib")))
if os.path.exists(os.path.join(config.flash_obj_root, "lib", "libflash_runtime.so")) and \
        shutil.which("cc"):
    config.available_features.add("flash-runtime")
