"""Test drivers for FlashMLIR (CPU numerics via mlir-runner)."""
