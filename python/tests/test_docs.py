"""docs/generated must match what mlir-tblgen produces from the .td files."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATED = {
    "FlashDialect.md": "build/docs/Flash/FlashDialect.md",
    "FlashOps.md": "build/docs/Flash/FlashOps.md",
    "FlashAttrs.md": "build/docs/Flash/FlashAttrs.md",
    "FlashPasses.md": "build/docs/FlashPasses.md",
    "FlashConversionPasses.md": "build/docs/FlashConversionPasses.md",
    "FlashBundlePasses.md": "build/docs/FlashBundlePasses.md",
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_docs_are_current(name):
    built = ROOT / GENERATED[name]
    committed = ROOT / "docs" / "generated" / name
    assert built.exists(), f"{built} missing: build the mlir-doc target (scripts/build.sh does)"
    assert committed.exists(), f"{committed} missing: run scripts/gen-docs.sh"
    assert committed.read_text() == built.read_text(), (
        f"docs/generated/{name} is stale: run scripts/gen-docs.sh and commit")


# The IO reports pasted in docs/io-model.md must be what flash-opt prints today.
IO_REPORTS = [
    ("examples/gpt2-medium.mlir", "sm_80"),
    ("examples/gpt2-medium.mlir", "sm_90a"),
    ("examples/d128-n8k.mlir", "sm_90a"),
]


@pytest.mark.parametrize("example,arch", IO_REPORTS)
def test_io_model_doc_reports_are_current(example, arch):
    import subprocess
    flash_opt = ROOT / "build" / "bin" / "flash-opt"
    assert flash_opt.exists(), "build flash-opt first"
    out = subprocess.run([str(flash_opt), example, f"--flash-select-schedule=arch={arch}",
                          "--flash-io-report", "-o", "/dev/null"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    doc = (ROOT / "docs" / "io-model.md").read_text()
    command = (f"$ flash-opt {example} --flash-select-schedule=arch={arch} "
               "--flash-io-report -o /dev/null\n")
    assert command in doc, f"docs/io-model.md has no block for: {command}"
    pasted = doc.split(command, 1)[1].split("```", 1)[0]
    assert pasted == out, f"docs/io-model.md's report for {example} on {arch} is stale"
