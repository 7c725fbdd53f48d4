"""Example usage: a table of contents, kept up to date between the markers."""

from mdtoc import make_toc, slugify, update_toc

doc = "# Guide\n\n<!-- toc -->\n<!-- tocstop -->\n\n## Install\n## Usage\n### Options\n"
assert make_toc(doc, min_level=2) == "- [Install](#install)\n- [Usage](#usage)\n  - [Options](#options)\n"
updated = update_toc(doc, min_level=2)
assert "- [Usage](#usage)" in updated and updated.startswith("# Guide")
assert slugify("Hello, World!") == "hello-world"
print("ok")
