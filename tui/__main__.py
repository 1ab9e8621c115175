"""`python -m tui [DB]`: the same app as `fimreplay tui`."""

import sys

from tui.app import create_app

if __name__ == "__main__":  # not when a reader process (forkserver) preloads the main module
    create_app(sys.argv[1] if len(sys.argv) > 1 else None).run()
