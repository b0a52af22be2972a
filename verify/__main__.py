import sys

from fedrates.verify.cli import main

sys.exit(main())
