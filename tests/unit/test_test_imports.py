"""What a release's tests import and nobody declares (issue 47, item 3): emptylog 0.0.9's
tests import loguru and full_match, which its sdist declares nowhere; every test failed on the
reference. The real package index answers whether a name is a project (PyPI here)."""

from __future__ import annotations

import datetime as dt

from pytest_e2ebench.tools.importers import testimports


def test_module_level_imports_nobody_provides_are_found_on_the_index(tmp_path):
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "helpers.py").write_text("")
    (tmp_path / "tests" / "test_a.py").write_text(
        "import os, json\nimport pytest\nfrom loguru import logger\nimport mylib.core\n"
        "from tests import helpers\nimport helpers\nimport yaml\nimport printo\n"
        "from . import sibling\nimport no_such_project_e2ebench_xyz\n"
        "try:\n    import numpy\nexcept ImportError:\n    numpy = None\n"
        "def test_x():\n    import pandas\n"
    )
    (tmp_path / "tests" / "broken.py").write_text("def (:\n")
    files = ["tests/test_a.py", "tests/broken.py", "tests/helpers.py"]
    found = testimports.undeclared(tmp_path, files, ["printo", "pytest-mock"])
    # the standard library, the tools, the release's and the tests' own modules, a declared
    # dependency, optional and late imports and a name no project has are left out
    assert found == ["loguru", "pyyaml"]
    # pinned to what was current when the release was made
    at = testimports.undeclared(tmp_path, files, ["printo"], dt.date(2024, 2, 11))
    assert at == ["loguru==0.7.2", "pyyaml==6.0.1"]


def test_what_the_releases_dependencies_bring_is_not_pinned_beside_the_tools(tmp_path):
    """scikit-learn brings numpy: sklearn-compat's tests import it, and a pin of it among the
    test tools would constrain the project's own install (uv resolves the release's
    dependencies to know)."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "compat"\nversion = "1.0"\ndependencies = ["scikit-learn"]\n'
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("import numpy\nimport loguru\n")
    assert testimports.undeclared(tmp_path, ["tests/test_a.py"], []) == ["loguru"]
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "compat"\nversion = "1.0"\ndependencies = ["no-such-dist-e2e>=9"]\n'
    )
    # dependencies that do not resolve: nothing is added blind
    assert testimports.undeclared(tmp_path, ["tests/test_a.py"], []) == []
