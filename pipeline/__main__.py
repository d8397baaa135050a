"""`python -m pipeline ...`"""

import os
import sys

from pipeline.cli import main

code = main()
# A build ends holding a gigabyte of small objects, which the interpreter would free one at a
# time on the way out (0.2 s of a one-change build of 10,000 documents): once every file is
# written and the streams are flushed, the process ends and the system takes the memory back.
try:
    sys.stdout.flush()
    sys.stderr.flush()
except OSError:
    os._exit(120)  # what the interpreter exits with when it cannot flush them
os._exit(code)
