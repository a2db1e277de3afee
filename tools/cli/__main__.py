"""`python -m code_intel.cli`: the same as the `code-intel` command."""

import sys

from code_intel.cli.main import main

sys.exit(main())
