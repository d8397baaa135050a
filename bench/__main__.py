"""`python -m bench`: the benchmark (bench/run.py)."""

import sys

from bench.run import main

sys.exit(main())
