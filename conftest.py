"""Root conftest: the project's own tests use pytester for black-box runs."""

import os

import pytest

pytest_plugins = ["pytester"]


def pytest_addoption(parser):
    parser.addoption(
        "--selfcheck",
        action="store_true",
        help="also run the full self-check of every bundled task (tests marked 'selfcheck': "
        "3 reference runs, the empty repository and every mutant; adds 15-20 min on 2 cores)",
    )

    parser.addoption(
        "--model",
        action="store_true",
        help="also run the tests marked 'model' against a real local model: the one "
        "E2EBENCH_MODEL_BASE_URL and E2EBENCH_MODEL_NAME name, else llama-server with the "
        "model of `e2ebench model fetch` (fetched and built on first use, cached)",
    )


def pytest_collection_modifyitems(config, items):
    skips = {}
    if not config.getoption("--selfcheck"):
        skips["selfcheck"] = "the full self-check of the bundled tasks: run with --selfcheck"
    if not (config.getoption("--model") or os.environ.get("E2EBENCH_MODEL_BASE_URL")):
        skips["model"] = "needs a real model: run with --model or set E2EBENCH_MODEL_BASE_URL"
    for item in items:
        for marker, reason in skips.items():
            if marker in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))
