"""The split run's suite process starts here: ``python -S e2ebench_parent.py TOOLS ARGS...``.

A file of the probe's folder, not ``python -c``: the bottom frame of every stack in that
process is then the harness's (``-c`` code is named ``<string>``, which the guard cannot tell
from code compiled at run time, so a test tool's wrapper made as a test module is imported,
hypothesis's ``@given``, would not count as the tool's).
"""

import e2ebench_split

if __name__ == "__main__":
    e2ebench_split.main()
