"""The built-in CLI agents' specs, read without running them: every shipped lock pins each
package with its hash, each launch points the agent at its proxy with a dummy key only, and
budgets say which limit was spent (issue 29)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pytest_e2ebench.agents.clitools.install import LOCKS, pinned
from pytest_e2ebench.agents.clitools.runner import make
from pytest_e2ebench.agents.clitools.specs import DUMMY_KEY, SPECS
from pytest_e2ebench.proxy import Budget

PROXY = "http://127.0.0.1:4321/v1"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_default_version_ships_a_hash_lock(name):
    spec = SPECS[name]
    assert pinned(spec, spec.version)
    folder = LOCKS / f"{name}-{spec.version}"
    if spec.kind == "npm":
        lock = json.loads((folder / "package-lock.json").read_text())
        packages = {k: v for k, v in lock["packages"].items() if k}
        assert packages and all(
            p["integrity"].startswith("sha512-") for p in packages.values() if "resolved" in p
        )
        assert lock["packages"][f"node_modules/{spec.package}"]["version"] == spec.version
    else:
        text = (folder / "requirements.txt").read_text()
        pins = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)
        assert (spec.package, spec.version) in pins
        # every pinned requirement is followed by at least one sha256
        blocks = re.split(r"\n(?=[A-Za-z0-9_.-]+==)", text.strip())
        assert all("--hash=sha256:" in b for b in blocks if "==" in b)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_launch_reaches_the_proxy_with_a_dummy_key(name):
    spec = SPECS[name]
    launch = spec.launch(Path("/tools/x"), PROXY, "m", "build it", 7)
    text = json.dumps([launch.argv, launch.env, launch.files])
    assert "127.0.0.1:4321" in text
    keys = [v for k, v in launch.env.items() if "KEY" in k]
    assert all(v == DUMMY_KEY for v in keys)
    assert "build it" in launch.argv


def test_a_version_is_pinned_with_at():
    agent = make("claude-code@2.0.1", settings=None)
    assert (agent.version, agent.label) == ("2.0.1", "claude-code-2.0.1")
    assert make("nothing-like-it", settings=None) is None


@pytest.mark.parametrize(
    ("budget", "spent", "says"),
    [
        (Budget(tokens=100), (100, 0.0, 1), "--e2e-max-tokens=100"),
        (Budget(cost_usd=0.5), (1, 0.5, 1), "--e2e-max-cost=0.5"),
        (Budget(steps=3), (1, None, 3), "--e2e-max-steps=3"),
        (Budget(tokens=100, cost_usd=1.0, steps=3), (99, None, 2), None),
    ],
)
def test_budget_names_what_was_spent(budget, spent, says):
    why = budget.spent(*spent)
    assert (why is None) if says is None else (says in why)
