"""Small synthetic repositories in DevEval's published layout (no DevEval data is committed).

``write_sample(root)`` writes, under ``root``:

* ``wordstat`` — a word-counting package with every document (UML in Markdown with a
  ```mermaid fence, the architecture as a ``tree`` drawing in a ```bash fence, as DevEval
  writes them), acceptance and unit tests (unittest classes), an example script;
* ``nosequence`` — the same without ``UML_sequence.md`` (reported as not imported).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FILES = {
    "repo_config.json": json.dumps(
        {
            "language": "python",
            "PRD": "PRD.md",
            "UML_class": "UML_class.md",
            "UML_sequence": "UML_sequence.md",
            "architecture_design": "architecture_design.md",
            "dependencies": "requirements.txt",
            "unit_tests": "unit_tests",
            "acceptance_tests": "acceptance_tests",
            "usage_examples": "examples",
        }
    ),
    "PRD.md": "# wordstat\n\nCount the words of a text: `WordStat(text).count(word)` and "
    "`WordStat(text).top(n)`.\n",
    "UML_class.md": "```mermaid\nclassDiagram\n    class WordStat {\n        +count(word) int\n"
    "        +top(n) list\n    }\n```\n",
    "UML_sequence.md": "```mermaid\nsequenceDiagram\n    participant User\n"
    "    participant WordStat\n    User->>WordStat: count(word)\n```\n",
    "architecture_design.md": "# Architecture Design\nThe file tree:\n```bash\n"
    "├── examples\n│   └── demo.py\n├── wordstat\n│   ├── __init__.py\n│   └── stats.py\n```\n"
    "\n`stats.py`: the WordStat class.\n",
    "requirements.txt": "# nothing beyond the standard library\n",
    "wordstat/__init__.py": "from .stats import WordStat\n",
    "wordstat/stats.py": "from collections import Counter\n\n\nclass WordStat:\n"
    "    def __init__(self, text):\n        self.counts = Counter(text.lower().split())\n\n"
    "    def count(self, word):\n        return self.counts[word.lower()]\n\n"
    "    def top(self, n):\n        return [w for w, _ in self.counts.most_common(n)]\n",
    "acceptance_tests/test_acceptance.py": "import unittest\n\nfrom wordstat import WordStat\n\n\n"
    "class TestAcceptance(unittest.TestCase):\n    def test_counts_words(self):\n"
    "        self.assertEqual(WordStat('a b a').count('A'), 2)\n",
    "unit_tests/test_stats.py": "import unittest\n\nfrom wordstat.stats import WordStat\n\n\n"
    "class TestStats(unittest.TestCase):\n    def test_top(self):\n"
    "        self.assertEqual(WordStat('x y x').top(1), ['x'])\n\n"
    "    def test_missing(self):\n        self.assertEqual(WordStat('x').count('y'), 0)\n",
    "examples/demo.py": "from wordstat import WordStat\n\nprint(WordStat('to be or not to be').top(2))\n",
    "setup_shell_script.sh": "pip install -r requirements.txt\n",
}


def write_sample(root: Path) -> Path:
    """Write the sample repositories under ``root``; returns ``root``."""
    for rel, text in FILES.items():
        path = root / "wordstat" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    shutil.copytree(root / "wordstat", root / "nosequence")
    (root / "nosequence" / "UML_sequence.md").unlink()
    return root
