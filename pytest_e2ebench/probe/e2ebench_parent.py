"""The split run's suite process starts here: ``python -S e2ebench_parent.py TOOLS ARGS...``.

A file of the probe's folder, not ``python -c``: the bottom frame of every stack in that
process is then the harness's (``-c`` code is named ``<string>``, which the guard cannot tell
from code compiled at run time, so a test tool's wrapper made as a test module is imported,
hypothesis's ``@given``, would not count as the tool's).
"""

import sys

# no empty entry (the working folder, a copy of the project's for [tests] cwd = "project")
# before the first import of ours; a script's own folder is the probe's, the harness's
sys.path[:] = [p for p in sys.path if p]

import e2ebench_split  # noqa: E402 - after the path is cleaned

if __name__ == "__main__":
    e2ebench_split.main()
