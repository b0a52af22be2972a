"""``python -m fedrates`` runs the ``fedrates`` command line."""

import sys

from fedrates.verify.cli import main

sys.exit(main())
