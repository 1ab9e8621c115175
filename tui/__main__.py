"""`python -m tui [DB]`: the same app as `fimreplay tui`."""

import sys

from tui.app import create_app

create_app(sys.argv[1] if len(sys.argv) > 1 else None).run()
