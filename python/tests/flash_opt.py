"""Where the Python tests find flash-opt: $FLASH_OPT, or build/bin/flash-opt of
this checkout; a test that needs it fails (not skips) when it is missing."""
import os

import pytest

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         os.pardir, os.pardir))


def flash_opt_path():
    p = os.environ.get("FLASH_OPT", os.path.join("build", "bin", "flash-opt"))
    p = p if os.path.isabs(p) else os.path.join(REPO_ROOT, p)
    if not (os.path.isfile(p) and os.access(p, os.X_OK)):
        pytest.fail("flash-opt not found at %s: build it first" % p, pytrace=False)
    return p
