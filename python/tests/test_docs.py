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
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_docs_are_current(name):
    built = ROOT / GENERATED[name]
    committed = ROOT / "docs" / "generated" / name
    assert built.exists(), f"{built} missing: build the mlir-doc target (scripts/build.sh does)"
    assert committed.exists(), f"{committed} missing: run scripts/gen-docs.sh"
    assert committed.read_text() == built.read_text(), (
        f"docs/generated/{name} is stale: run scripts/gen-docs.sh and commit")
