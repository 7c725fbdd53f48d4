"""Download a published benchmark at a pinned commit, check it, import it (``e2ebench fetch``).

``e2ebench fetch NAME DEST`` takes a peer's repository at the commit pinned in
:data:`DATASETS` as GitHub's archive of that commit (or ``--mirror URL|PATH``, the same
archive from elsewhere), unpacks the dataset's folders through the boundary
(:mod:`..untrusted.archive`: regular files only, bounded, inside ``DEST/source``), checks their
content against the pinned SHA-256, imports them with the dataset's importer into
``DEST/tasks`` and prints the pytest command that grades them.

What the SHA-256 pins (docs/datasets.md): not the archive's bytes, which GitHub does not
promise to keep stable (its compression has changed before) and a mirror recompresses, but
the **content**: the SHA-256 of the manifest ``<git blob id> <path>`` of every file kept,
sorted by path. It is independent of compression, archive format and timestamps, and is what
``git ls-tree`` prints for the pinned commit, so a pin is computed from the repository's
history alone (:func:`git_manifest`), even for files a partial clone lacks.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

from ...errors import AgentFileError
from ...untrusted.archive import ArchiveLimits, manifest_digest, manifest_text, unpack
from . import gate
from .pins import PINS_FILE, read_pins

DOWNLOAD_TIMEOUT = 120  # seconds without data before a download is given up
MAX_DOWNLOAD_BYTES = 1 << 30  # the largest archive here (DevEval's) is ~60 MB compressed
MANIFEST_FILE = "source-manifest.txt"


@dataclasses.dataclass(frozen=True)
class Dataset:
    """One published benchmark: where it lives, what of it is kept, its pin and licence."""

    name: str
    repo: str  # owner/name on GitHub
    commit: str
    keep: tuple[str, ...]  # folders (or files) of the repository that are the dataset
    sha256: str  # of the content manifest of ``keep`` at ``commit`` (see the module doc)
    src: str  # what the importer is given, relative to DEST/source
    licence: str
    grade: str  # the pytest command that grades the import ({tasks}: DEST/tasks)
    importer: str = ""  # name in the importers (default: ``name``)
    files: int = 0  # regular files kept
    size: str = ""  # their size, as measured when pinned

    @property
    def url(self) -> str:
        """GitHub's archive of the pinned commit."""
        return f"https://github.com/{self.repo}/archive/{self.commit}.tar.gz"


DATASETS_FILE = PINS_FILE  # the pins, one table a dataset


def load_datasets(path: Path = DATASETS_FILE) -> dict[str, Dataset]:
    """The pinned datasets of ``datasets.toml`` (the harness's own file), by name."""
    table = read_pins(path)
    return {
        name: Dataset(name=name, **{**entry, "keep": tuple(entry["keep"])})
        for name, entry in table.items()
    }


DATASETS = load_datasets()
# RealDevBench is published on Hugging Face only (AppEvalPilot's repository has no tasks):
# no GitHub archive to pin; ``fetch realdevbench`` says so and how to import a copy.
UNPINNED = {
    "realdevbench": (
        "RealDevBench is published only as the Hugging Face dataset stellaHsr-mm/RealDevBench "
        "(AppEvalPilot's repository, tanghaom/AppEvalPilot, MIT, holds no tasks), which has no "
        "commit archive to pin: clone it (git clone "
        "https://huggingface.co/datasets/stellaHsr-mm/RealDevBench) and run `e2ebench import "
        "realdevbench CLONE DEST/tasks`"
    )
}


def git_manifest(gitdir: Path, commit: str, keep: tuple[str, ...]) -> dict[str, str]:
    """``{path: blob id}`` of the regular files under ``keep`` at ``commit`` of a repository.

    How a pin is made: ``manifest_digest(git_manifest(...))``. Reads git's tree objects only,
    so it works on a clone that lacks the files' contents.
    """
    listing = subprocess.run(
        ["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-z", commit, "--", *keep],
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8", "surrogateescape")
    manifest = {}
    for entry in filter(None, listing.split("\0")):
        info, path = entry.split("\t", 1)
        mode, kind, blob = info.split()
        if kind == "blob" and mode in ("100644", "100755"):
            manifest[path] = blob
    return manifest


def download(url: str, target: Path) -> Path:
    """``url`` (http(s) or file) saved to ``target``, at most MAX_DOWNLOAD_BYTES."""
    with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
        with target.open("wb") as out:
            total = 0
            while chunk := response.read(1 << 20):
                total += len(chunk)
                if total > MAX_DOWNLOAD_BYTES:
                    raise AgentFileError(url, f"is larger than {MAX_DOWNLOAD_BYTES} bytes")
                out.write(chunk)
    return target


def archive_url(dataset: Dataset, mirror: str | None) -> str:
    """The address to download: the mirror (a URL, or a local path made a file: URL) or
    GitHub's archive of the pinned commit."""
    if not mirror:
        return dataset.url
    if urllib.parse.urlsplit(mirror).scheme in ("http", "https", "file"):
        return mirror
    return Path(mirror).resolve().as_uri()


def fetch(
    dataset: Dataset, dest: Path, mirror: str | None = None, limits: ArchiveLimits | None = None
) -> Path:
    """Download, unpack and check ``dataset`` into ``dest/source``; that folder.

    The manifest found is written to ``dest/source-manifest.txt``. Raises AgentFileError when
    the content is not the pinned one (naming both digests; the unpacked files are removed) or
    the archive is refused; OSError when the download fails.
    """
    source = dest / "source"
    with tempfile.TemporaryDirectory(prefix="e2ebench-fetch-") as tmp:
        archive = download(archive_url(dataset, mirror), Path(tmp) / "archive.tar.gz")
        manifest = unpack(archive, source, dataset.keep, limits or ArchiveLimits())
    found = manifest_digest(manifest)
    # kept either way: provenance of an import, or what to compare with `git ls-tree`
    (dest / MANIFEST_FILE).write_text(manifest_text(manifest), encoding="utf-8")
    if found != dataset.sha256:
        shutil.rmtree(source)
        raise AgentFileError(
            f"{dataset.name} archive",
            f"content has sha256 {found}, not the pinned {dataset.sha256}: it is not "
            f"{dataset.repo} at {dataset.commit} (its file list: {dest / MANIFEST_FILE}); "
            "nothing was imported",
        )
    return source


def import_fetched(dataset: Dataset, source: Path, tasks: Path) -> int:
    """Run the dataset's importer on ``source`` as ``e2ebench import`` would; its exit status."""
    # by name, as the cli's registry holds them: each importer is the module of that name
    module = importlib.import_module(f"{__package__}.{dataset.importer or dataset.name}")
    parser = argparse.ArgumentParser(prog=f"e2ebench import {dataset.name}")
    module.add_arguments(parser)
    args = parser.parse_args([str(source / dataset.src), str(tasks)])
    return module.run(args)


def listing() -> str:
    """Every dataset ``fetch`` knows: its repository, pinned commit, size and licence."""
    lines = ["datasets (e2ebench fetch NAME DEST):"]
    for name, data in sorted(DATASETS.items()):
        lines.append(f"  {name}: {data.repo} at {data.commit}, {', '.join(data.keep)}/")
        lines.append(f"      {data.files} files, {data.size}; licence: {data.licence}")
    for name, why in sorted(UNPINNED.items()):
        lines.append(f"  {name}: not pinned: {why.split(':', 1)[0]}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command line of ``e2ebench fetch`` (no NAME: the list of datasets)."""
    parser.add_argument("dataset", nargs="?", choices=sorted([*DATASETS, *UNPINNED]))
    parser.add_argument(
        "dest", nargs="?", type=Path, help="a new folder: source/ (the peer's files) and tasks/"
    )
    parser.add_argument(
        "--mirror",
        metavar="URL|PATH",
        help="download the archive from here instead of GitHub (the same .tar.gz; its content "
        "is checked against the same pin)",
    )
    gate.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Fetch, check, import and print the grading command; 1 on any refusal. Without a
    dataset, list them."""
    name, dest = args.dataset, args.dest
    if name is None:
        print(listing())
        return 0
    if dest is None:
        print(f"e2ebench fetch {name}: give DEST, a new folder to fetch into", file=sys.stderr)
        return 2
    if name in UNPINNED:
        print(f"e2ebench fetch {name}: {UNPINNED[name]}", file=sys.stderr)
        return 1
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        print(f"e2ebench fetch: {dest} is not an empty folder; give a new one", file=sys.stderr)
        return 1
    dataset = DATASETS[name]
    if args.mirror and Path(args.mirror).is_dir():  # a clone or a git mirror, not its archive
        print(
            f"e2ebench fetch {name}: --mirror {args.mirror} is a folder; give the archive of "
            f"the pinned commit (a .tar.gz, as GitHub serves {dataset.url}), or import a "
            f"clone's files with `e2ebench import {name} SRC OUT` (unpinned)",
            file=sys.stderr,
        )
        return 1
    dest.mkdir(parents=True, exist_ok=True)
    url = archive_url(dataset, args.mirror)
    print(f"fetching {dataset.repo} at {dataset.commit} ({url})")
    try:
        source = fetch(dataset, dest, args.mirror)
    except AgentFileError as exc:
        print(f"e2ebench fetch {name}: refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(
            f"e2ebench fetch {name}: could not download {url} ({exc}); check the network, or "
            "give --mirror URL|PATH for a copy of that archive",
            file=sys.stderr,
        )
        return 1
    print(f"content sha256 {dataset.sha256} as pinned; licence: {dataset.licence}")
    status = import_fetched(dataset, source, dest / "tasks")
    if status == 0 and not args.no_gate:
        status = gate.check(dest / "tasks", args.gate_jobs)
    if status == 0:
        print("grade it with:\n  " + dataset.grade.format(tasks=dest / "tasks"))
    return status
