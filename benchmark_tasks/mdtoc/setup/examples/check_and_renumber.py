"""Example usage: broken links, list renumbering, statistics and the command line."""

import io
import contextlib

from mdtoc import check_links, renumber, stats
from mdtoc.cli import main

broken = check_links("# Title\n\nSee [missing](#nowhere) and [title](#title).\n")
assert [b.target for b in broken] == ["#nowhere"]
assert renumber("1. a\n1. b\n1. c\n") == "1. a\n2. b\n3. c\n"
assert stats("# A\n\nsome words here\n").lines == 3
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
    status = main(["--help"])
    assert status == 0
assert "usage: mdtoc" in out.getvalue()
print("ok")
