"""Shared by the tests (moved from test_stages.py)."""

from __future__ import annotations

CLASS = """\
classDiagram
    class Calculator {
        +add(a, b) int
        +sub(a, b) int
    }
    class Multiplier {
        +mul(a, b) int
    }
    Calculator --> Multiplier
"""


SEQUENCE = """\
sequenceDiagram
    participant User
    participant Calculator
    participant Multiplier
    User->>Calculator: add(1, 2)
    Calculator->>Multiplier: mul(3, 4)
    Multiplier-->>User: 12
"""


ARCHITECTURE = """\
calc/
├── pyproject.toml
└── calc/
    ├── __init__.py
    ├── add.py
    ├── sub.py
    └── mul.py
"""


MUTANTS = """\
[[mutant]]
name = "add-subtracts"
class = "wrong_logic"
fails = ["R1"]
[[mutant.edit]]
file = "calc/add.py"
old = "return a + b"
new = "return a - b"
"""
