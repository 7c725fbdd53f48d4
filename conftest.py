"""Root conftest: the project's own tests use pytester for black-box runs."""

pytest_plugins = ["pytester"]
