"""``e2ebench fetch``: a pinned archive is unpacked through the boundary, checked and imported.

No third-party data: every archive is built here, of the shape a peer's GitHub archive has
(one top folder ``<repo>-<commit>/``, the dataset in a sub-folder, the peer's code beside it).
The pin of the synthetic dataset is computed by git from a real repository, so the test checks
that what the unpacker hashes is what ``git ls-tree`` names at the commit.
"""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from pytest_e2ebench.cli import main
from pytest_e2ebench.errors import AgentFileError, E2EBenchError
from pytest_e2ebench.taskmodel.task import load_task
from pytest_e2ebench.tools.importers import fetch
from pytest_e2ebench.untrusted.archive import ArchiveLimits, manifest_digest, unpack

PROJECT = {
    "label": "Tide Table",
    "scenario": "Data",
    "features": ["Table: list the tides of the attached CSV.", "Chart: plot them."],
    "prompt": "Show the tides.",
    "files": ["tides.csv"],
}
FILES = {
    "dataset/test_dataset.jsonl": json.dumps(PROJECT).encode() + b"\n",
    "dataset/data/benchmark/Tide Table/tides.csv": b"time,height\n06:00,1.2\n",
    "code/run.py": b"print('the peer code, not the dataset')\n",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def peer(tmp_path_factory) -> tuple[Path, Path, str]:
    """A peer repository (git) and GitHub-shaped archive of its commit; (repo, archive, commit)."""
    root = tmp_path_factory.mktemp("peer")
    repo = root / "Peer"
    for rel, data in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_bytes(data)
    _git(root, "init", "-q", str(repo))
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "data")
    commit = _git(repo, "rev-parse", "HEAD").strip()
    archive = root / "peer.tar.gz"
    _git(repo, "archive", "--format=tar.gz", f"--prefix=Peer-{commit}/", "-o", str(archive), "HEAD")
    return repo, archive, commit


def _dataset(repo: Path, commit: str, **changes) -> fetch.Dataset:
    pin = manifest_digest(fetch.git_manifest(repo / ".git", commit, ("dataset",)))
    fields = dict(
        name="synthetic",
        repo="peer/Peer",
        commit=commit,
        keep=("dataset",),
        sha256=pin,
        src="dataset",
        licence="MIT",
        grade="pytest --e2e-tasks={tasks} --e2e-agent=dir:OUT",
        importer="realdevbench",
    )
    return fetch.Dataset(**{**fields, **changes})


def test_pinned_archive_is_unpacked_checked_and_imported(peer, tmp_path, capsys):
    repo, archive, commit = peer
    dataset = _dataset(repo, commit)
    source = fetch.fetch(dataset, tmp_path, mirror=str(archive))
    listed = (tmp_path / fetch.MANIFEST_FILE).read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in listed] == sorted(
        p for p in FILES if p.startswith("dataset/")
    )
    assert (source / "dataset" / "test_dataset.jsonl").is_file()
    assert not (source / "code").exists()  # the peer's code is not the dataset: not unpacked
    assert fetch.import_fetched(dataset, source, tmp_path / "tasks") == 0
    task = load_task(tmp_path / "tasks" / "tide-table")
    assert [r.title for r in task.requirements] == ["Table", "Chart"]
    assert (task.materials_dir / "tides.csv").read_bytes() == FILES[
        "dataset/data/benchmark/Tide Table/tides.csv"
    ]


def test_wrong_content_is_refused_naming_both_hashes(peer, tmp_path, capsys):
    """The CLI with the real ProjectEval pin and a mirror of other content: refused."""
    _, archive, _ = peer
    pinned = fetch.DATASETS["projecteval"].sha256
    dest = tmp_path / "dest"
    tampered = tmp_path / "tampered.tar.gz"
    _tar(tampered, {"P-1/data/project_eval_project.json": b"[]"})
    assert main(["fetch", "projecteval", str(dest), "--mirror", tampered.as_uri()]) == 1
    err = capsys.readouterr().err
    found = manifest_digest({"data/project_eval_project.json": _blob_id(b"[]")})
    assert f"content has sha256 {found}, not the pinned {pinned}" in err
    assert "nothing was imported" in err
    assert not (dest / "source").exists() and not (dest / "tasks").exists()
    assert (dest / fetch.MANIFEST_FILE).read_text().endswith(" data/project_eval_project.json\n")
    # a dataset pinned to one commit refuses the right files of another commit too
    assert main(["fetch", "projecteval", str(tmp_path / "d2"), "--mirror", str(archive)]) == 1


def test_an_existing_destination_and_an_unpinned_dataset_are_refused(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine")
    assert main(["fetch", "deveval", str(tmp_path)]) == 1
    assert "is not an empty folder; give a new one" in capsys.readouterr().err
    missing = (tmp_path / "nowhere.tar.gz").as_uri()
    assert main(["fetch", "deveval", str(tmp_path / "d"), "--mirror", missing]) == 1
    assert f"could not download {missing}" in capsys.readouterr().err
    assert main(["fetch", "realdevbench", str(tmp_path / "new")]) == 1
    assert "stellaHsr-mm/RealDevBench" in capsys.readouterr().err
    # a folder (a clone, a git mirror) is not the archive: said so, not "Is a directory"
    clone = tmp_path / "clone"
    clone.mkdir()
    assert main(["fetch", "deveval", str(tmp_path / "d3"), "--mirror", str(clone)]) == 1
    assert "is a folder; give the archive of the pinned commit" in capsys.readouterr().err


def _blob_id(data: bytes) -> str:
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _tar(path: Path, files: dict[str, bytes], extra: tuple[tarfile.TarInfo, ...] = ()) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info)
    return path


def _member(name: str, kind: bytes, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


OK = {"P-1/data/a.json": b"{}"}
HOSTILE = {
    "symlink": ({}, (_member("P-1/data/x", tarfile.SYMTYPE, "/etc/passwd"),), "symbolic link"),
    "hard link": ({}, (_member("P-1/data/x", tarfile.LNKTYPE, "P-1/data/a.json"),), "hard link"),
    "device": ({}, (_member("P-1/data/x", tarfile.CHRTYPE),), "special member"),
    "fifo": ({}, (_member("P-1/data/x", tarfile.FIFOTYPE),), "special member"),
    "dot-dot": ({"P-1/data/../../x": b"x"}, (), "not a plain relative path"),
    "absolute": ({"/etc/x": b"x"}, (), "is not below one top folder"),
    "second top": ({"Q-2/data/b.json": b"{}"}, (), "lies outside the top folder"),
    "twice": ({"P-1/data//a.json": b"[]"}, (), "appears twice"),
    "duplicate": ({"P-1/./data/a.json": b"[]"}, (), "appears twice"),
    "too large": ({"P-1/data/big": b"x" * 2048}, (), "is larger than 1024 bytes"),
    "too many": ({f"P-1/other/{n}": b"" for n in range(40)}, (), "more than 30 members"),
    "too deep": ({"P-1/data/" + "d/" * 12 + "f": b""}, (), "deeper than 8 folders"),
}


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_hostile_archives_are_refused_and_leave_nothing(case, tmp_path):
    files, extra, reason = HOSTILE[case]
    archive = _tar(tmp_path / "a.tar.gz", {**OK, **files}, extra)
    limits = ArchiveLimits(max_members=30, max_file_bytes=1024, max_depth=8)
    with pytest.raises(AgentFileError, match=reason):
        unpack(archive, tmp_path / "out", ("data",), limits)
    assert not (tmp_path / "out").exists()


def test_a_decompression_bomb_stops_at_the_read_limit(tmp_path):
    archive = _tar(tmp_path / "a.tar.gz", {**OK, "P-1/other/zeros": bytes(1 << 20)})
    with pytest.raises(AgentFileError, match="unpacks to more than"):
        unpack(archive, tmp_path / "out", ("data",), ArchiveLimits(max_read_bytes=1 << 19))
    (tmp_path / "b.tar.gz").write_bytes(b"\x1f\x8b not gzip")
    with pytest.raises(AgentFileError, match="not a readable .tar.gz"):
        unpack(tmp_path / "b.tar.gz", tmp_path / "out", ("data",))


def test_e2edevbench_imports_every_file_of_its_datasets_folder(tmp_path, capsys):
    """What ``fetch e2edevbench`` gives the importer: the datasets/ folder, one report."""
    folder = tmp_path / "datasets"
    folder.mkdir()
    for quarter, name in (("2024-01", "alpha"), ("2025-01", "beta")):
        entry = {
            "repo_name": f"owner_{name}",
            "url": f"https://example.invalid/owner/{name}",
            "commit_sha": "a" * 40,
            "SRS_document": f"# {name}\n",
            "test_cases": {"tests/test_x.py::test_one": {"result": "passed"}},
            "structured_requirements": [],
        }
        (folder / f"pypi-{quarter}-dataset-final.json").write_text(json.dumps([entry]))
    out = tmp_path / "tasks"
    assert main(["import", "e2edevbench", "--no-gate", str(folder), str(out), "--offline"]) == 0
    printed = capsys.readouterr().out
    assert "e2edevbench-owner_alpha: imported" in printed
    assert "e2edevbench-owner_beta: imported" in printed
    report = json.loads((out / "import-report.json").read_text())
    assert [r["task"] for r in report] == ["e2edevbench-owner_alpha", "e2edevbench-owner_beta"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["import", "e2edevbench", "--no-gate", str(empty), str(out), "--offline"]) == 1
    assert "no datasets/*.json file of E2EDevBench" in capsys.readouterr().err


def test_test_dependencies_are_read_from_every_tool_s_group():
    """E2EDevBench's git-referenced projects declared their test tools in Poetry groups and
    PEP 735 groups (mongomock, PyHamcrest), which the importer did not read."""
    from pytest_e2ebench.tools.importers.e2edevbench import declared_groups

    poetry = {
        "tool": {
            "poetry": {
                "dependencies": {"python": "^3.10"},
                "group": {"dev": {"dependencies": {"pytest": "^8", "mongomock": "^4.3.0"}}},
            }
        }
    }
    assert declared_groups(poetry) == ["pytest", "mongomock"]
    both = {
        "tool": {
            "poetry": {
                "dev-dependencies": {"PyHamcrest": "^2.0"},
                "group": {"dev": {"dependencies": {"pytest-cov": "<5.0"}}},
            }
        }
    }
    assert declared_groups(both) == ["PyHamcrest", "pytest-cov"]
    pep735 = {"dependency-groups": {"test": ["hypothesis>=6", {"include-group": "lint"}]}}
    assert declared_groups(pep735) == ["hypothesis>=6"]
    extras = {"project": {"optional-dependencies": {"dev": ["a"], "test": ["b"]}}}
    assert declared_groups(extras) == ["b"]  # a test group before a dev one
    hostile = {
        "project": {"optional-dependencies": {"test": "pytest-mock"}},
        "tool": {"poetry": {"group": {"dev": {"dependencies": "xyz"}}}},
    }
    assert declared_groups(hostile) == []  # never a string's letters as package names


def test_a_dev_group_s_documentation_and_lint_tools_are_not_test_requirements(tmp_path):
    """pydongo's dev group (mkdocs-material, pinned pymdown-extensions) did not install."""
    from pytest_e2ebench.tools.importers.e2edevbench import declared_test_requirements

    (tmp_path / "pyproject.toml").write_text(
        '[dependency-groups]\ndev = ["pytest-asyncio>=0.23", "mkdocs-material", '
        '"pymdown-extensions>=10.14.3,<11", "mypy", "types-requests", "pandas-stubs", '
        '"ruff", "mongomock", "buildkit"]\n'
    )
    found = declared_test_requirements(tmp_path)
    # requests: what types-requests types, which no dependency declares (round 10's stub rule)
    assert found == ["pytest-asyncio>=0.23", "mongomock", "buildkit", "requests"]


def test_the_dataset_pins_are_the_harness_own_file_and_a_missing_one_is_said(tmp_path):
    """Issue 41: the pins were read through the untrusted parser and a missing file became {}
    (a wheel without datasets.toml: ``e2ebench fetch`` knew no dataset and said nothing)."""
    assert {"projecteval", "nl2repo"} <= set(fetch.load_datasets())
    missing = tmp_path / "datasets.toml"
    with pytest.raises(E2EBenchError, match=r"datasets.toml: missing; this install .* reinstall"):
        fetch.load_datasets(missing)
    missing.write_text("[projecteval\n")
    with pytest.raises(E2EBenchError, match=r"datasets.toml: not valid TOML"):
        fetch.load_datasets(missing)
