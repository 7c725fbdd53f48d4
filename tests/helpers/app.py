"""Shared by the tests (moved from test_app.py)."""

from __future__ import annotations

import pytest

from helpers.llm import ini
from pytest_e2ebench.tools.testing.scripted_app import app_judge_script
from pytest_e2ebench.tools.testing.scripted_llm import ScriptedLLM

REQUIREMENTS = """\
# Greeter

A one-page greeter with a counter and a theme switch. Static HTML/CSS/JS; the page starts at
`index.html`.

## Features

### F1: Greeting
Tags: core

A text field labelled "Your name" and a button "Greet"; greeting shows "Hello, NAME!".

### F2: Counter

A button "Add one" raises a counter shown as "Count: N" (starts at 0).

### F3: Theme

A drop-down labelled "Theme" (Light, Dark); choosing one shows "Theme: dark" or "Theme: light".
"""


APP = """<!doctype html>
<html><head><meta charset="utf-8"><title>Greeter</title></head>
<body>
  <label>Your name <input id="name"></label>
  <button id="greet">Greet</button>
  <p id="out"></p>
  <button id="add">Add one</button>
  <p id="count">Count: 0</p>
  <label>Theme <select id="theme"><option>Light</option><option>Dark</option></select></label>
  <p id="shown">Theme: light</p>
  <script src="app.js"></script>
</body></html>
"""


SCRIPT = """let n = 0;
document.getElementById('greet').addEventListener('click', () => {
  document.getElementById('out').textContent = `Hello, ${document.getElementById('name').value}!`;
});
document.getElementById('add').addEventListener('click', () => {
  n += 1;
  document.getElementById('count').textContent = `Count: ${n}`;
});
document.getElementById('theme').addEventListener('change', (e) => {
  document.getElementById('shown').textContent = `Theme: ${e.target.value.toLowerCase()}`;
});
"""


CASES = [
    {
        "feature": "F1",
        "case": "Type Ann into Your name, click Greet",
        "expected": "Hello, Ann!",
        "steps": [("type", "Your name", "Ann"), ("click", "Greet")],
        "expect": ["Hello, Ann!"],
    },
    {
        "feature": "F2",
        "case": "Click Add one twice",
        "expected": "Count: 2",
        "steps": [("click", "Add one"), ("click", "Add one")],
        "expect": ["Count: 2"],
    },
    {
        "feature": "F3",
        "case": "Choose Dark in Theme",
        "expected": "Theme: dark",
        "steps": [("select", "Theme", "Dark")],
        "expect": ["Theme: dark"],
    },
]


def make_app_task(tasks, task_id: str = "greeter", *, toml_extra: str = "", script: str = SCRIPT):
    root = tasks.tasks / task_id
    tasks.write(
        root / "task.toml",
        f'id = "{task_id}"\ntitle = "Greeter"\nkind = "app"\ncreated = 2026-11-24\n'
        f'source = "tests"\n\n[app]\nlaunch = "static"\nscenario = "display"\n{toml_extra}',
    )
    tasks.write(root / "requirements.md", REQUIREMENTS)
    tasks.write(root / "reference" / "index.html", APP)
    tasks.write(root / "reference" / "app.js", script)
    return root


@pytest.fixture
def llm():
    with ScriptedLLM() as server:
        yield server


def scripted(llm, cases=CASES, n=200):
    llm.push(*[app_judge_script({"# Greeter": cases})] * n)


def run(pytester, llm, *args):
    ini(pytester, e2ebench_app_cases="3-6")
    return pytester.runpytest_subprocess(
        f"--e2e-llm-base-url={llm.base_url}", "-p", "no:cacheprovider", *args
    )


def make_command_app(tasks, server: str, task_id: str = "greeter"):
    """The greeter, served by its own ``server.py`` (``launch = "command"``)."""
    command = 'command = ["python3", "server.py", "{port}"]\n'
    root = make_app_task(tasks, task_id, toml_extra=command)
    toml = (root / "task.toml").read_text().replace('launch = "static"', 'launch = "command"')
    (root / "task.toml").write_text(toml)
    tasks.write(root / "reference" / "server.py", server)
