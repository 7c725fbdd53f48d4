"""Root conftest: the project's own tests use pytester for black-box runs."""

import pytest

pytest_plugins = ["pytester"]


def pytest_addoption(parser):
    parser.addoption(
        "--selfcheck",
        action="store_true",
        help="also run the full self-check of every bundled task (tests marked 'selfcheck': "
        "3 reference runs, the empty repository and every mutant; adds 15-20 min on 2 cores)",
    )


def pytest_collection_modifyitems(config, items):
    if config.getoption("--selfcheck"):
        return
    skip = pytest.mark.skip(reason="the full self-check of the bundled tasks: run with --selfcheck")
    for item in items:
        if "selfcheck" in item.keywords:
            item.add_marker(skip)
