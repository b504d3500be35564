"""`python3 -m flash_mlir.bench` runs flash_mlir.tools.bench (kept for the commands in README and docs)."""
import sys

from flash_mlir.tools.bench import main

if __name__ == "__main__":
    sys.exit(main())
