"""`python3 -m flash_mlir.compile` runs flash_mlir.compiler.compile (kept for the commands in README and docs)."""
import sys

from flash_mlir.compiler.compile import main

if __name__ == "__main__":
    sys.exit(main())
