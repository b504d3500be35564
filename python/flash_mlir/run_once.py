"""`python3 -m flash_mlir.run_once` runs flash_mlir.tools.run_once (kept for the commands in README and docs)."""
import sys

from flash_mlir.tools.run_once import main

if __name__ == "__main__":
    sys.exit(main())
