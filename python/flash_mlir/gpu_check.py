"""`python3 -m flash_mlir.gpu_check` runs flash_mlir.tools.gpu_check (kept for the commands in README and docs)."""
import sys

from flash_mlir.tools.gpu_check import main

if __name__ == "__main__":
    sys.exit(main())
