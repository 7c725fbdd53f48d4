"""The vanilla agent's answer, parsed in the harness's process: same files, linear time."""

from __future__ import annotations

import random
import re
import time

from pytest_e2ebench.agents.vanilla import parse_files

# the parser of before, one regular expression: the reference for what a file is
BEFORE = re.compile(
    r"^###\s*FILE:\s*(?P<path>\S+)\s*\n```[^\n]*\n(?P<body>.*?)\n```\s*$", re.MULTILINE | re.DOTALL
)
PIECES = (
    "### FILE: a.py\n",
    "### FILE: b/c.py \n",
    "###FILE:x\n",
    "###  FILE:  d.txt\n```\n",
    "### FILE: a.py\n\n",
    "```\n",
    "```python\n",
    "``` \n",
    "```\t\n",
    "```x",
    "text ```\n",
    "print(1)\n",
    "  \n",
    "\n",
)


def test_the_files_are_those_of_the_single_expression():
    rng = random.Random(1)
    for _ in range(5000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        before = {m["path"]: m["body"] + "\n" for m in BEFORE.finditer(text)}
        assert parse_files(text) == before, repr(text)


def test_headings_no_fence_closes_are_parsed_in_linear_time():
    """20,000 of them (500 KB) took the single expression 46 s here: quadratic."""
    text = "### FILE: a.py\n```python\n" * 20_000
    start = time.monotonic()
    assert parse_files(text) == {}
    assert time.monotonic() - start < 2
