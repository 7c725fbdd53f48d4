"""Reference implementations that are real PyPI projects (E2EDevBench's construction).

A task may name its reference by ``[source] pypi = "name==version"`` and ``sha256``. The sdist
(never a wheel: the tests ship only in source distributions) is downloaded from the package
index uv uses (its JSON simple API; nothing is built), its hash checked, and it is unpacked
into a cache outside the repository (``$E2EBENCH_CACHE`` or ``~/.cache/pytest-e2ebench``).
Nothing of the project is committed. ``[source] git`` and ``commit`` name a commit of a git
repository instead (a URL or a local path; E2EDevBench pins commits): fetched the same way.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

from ..errors import E2EBenchError
from ..run.cache import file_lock
from ..untrusted.parse import loads_json
from .venv import index_url

CACHE_ENV = "E2EBENCH_CACHE"  # the user's cache folder (default ~/.cache/pytest-e2ebench)
DOWNLOAD_TIMEOUT = 600
# a PEP 440 public version (what a PKG-INFO may carry; also safe in a folder name)
VERSION = re.compile(r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?")
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
MAX_INDEX_PAGE = 64 << 20
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!_-]+)$")


class SourceError(E2EBenchError):
    """A PyPI reference could not be fetched or does not match its pin; the text says the fix."""


class FetchError(SourceError):
    """The index or the git remote did not answer: the network, not the task."""


def cache_root() -> Path:
    """The user's cache of fetched things: unpacked sdists, tools, vendored files, models."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else Path.home() / ".cache" / "pytest-e2ebench"


def parse_pin(pin: str) -> tuple[str, str]:
    """``"name==1.2"`` -> ``("name", "1.2")``; ValueError for anything else."""
    match = _PIN.match(pin.strip())
    if not match:
        raise ValueError(pin)
    return match["name"], match["version"]


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def index_files(name: str, timeout: float = DOWNLOAD_TIMEOUT) -> list[dict]:
    """The files of project ``name`` on the package index the harness's uv uses, from its
    JSON simple API (PEP 691): each ``filename``, ``url`` and ``hashes``."""

    url = f"{index_url().rstrip('/')}/{re.sub(r'[-_.]+', '-', name).lower()}/"
    request = urllib.request.Request(url, headers={"Accept": SIMPLE_JSON})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as page:
            data = loads_json(page.read(MAX_INDEX_PAGE), url)
    except urllib.error.HTTPError as exc:
        raise SourceError(
            f"the package index answers {exc.code} for {name} ({url}); check the project name"
        ) from None
    except (OSError, ValueError) as exc:
        raise FetchError(
            f"the package index {url} does not answer ({exc}); check the network or "
            "UV_DEFAULT_INDEX"
        ) from None
    files = data.get("files") if isinstance(data, dict) else None
    return [f for f in files or [] if isinstance(f, dict) and isinstance(f.get("filename"), str)]


def sdist_of(name: str, version: str) -> dict:
    """The index's entry of the sdist of ``name==version`` (``filename``, ``url``, sha256)."""
    want = re.sub(r"[-_.]+", "_", name).lower()
    for entry in index_files(name):
        filename = entry["filename"]
        stem = filename.removesuffix(".tar.gz").removesuffix(".zip")
        if stem == filename or "-" not in stem:
            continue
        project, _, found = stem.rpartition("-")
        if re.sub(r"[-_.]+", "_", project).lower() == want and found == version:
            return entry
    raise SourceError(
        f"{name}=={version} has no source distribution on the package index (only wheels, "
        "or no such version); name a git commit instead ([source] git and commit)"
    )


def _download(name: str, version: str, into: Path) -> Path:
    """Download the sdist of ``name==version`` from the index (a plain HTTP fetch: building
    nothing, running nothing)."""
    entry = sdist_of(name, version)
    return download(entry["url"], into / Path(entry["filename"]).name)


def download(url: str, target: Path) -> Path:
    """``url`` saved to ``target`` (a plain HTTP fetch); FetchError when it cannot be."""
    try:
        with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT) as response:
            with target.open("wb") as out:
                shutil.copyfileobj(response, out)
    except (OSError, ValueError) as exc:
        raise FetchError(
            f"could not download {url} ({exc}); check the network or UV_DEFAULT_INDEX"
        ) from None
    return target


def _unpack(archive: Path, into: Path) -> Path:
    if archive.name.endswith((".tar.gz", ".tgz", ".tar.bz2", ".tar")):
        with tarfile.open(archive) as tar:
            tar.extractall(into, filter="data")  # refuses absolute paths, links out, devices
    elif archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as zf:
            for member in zf.namelist():
                if member.startswith("/") or ".." in Path(member).parts:
                    raise SourceError(f"{archive.name}: unsafe path {member!r} in the archive")
            zf.extractall(into)
    else:
        raise SourceError(f"{archive.name}: not an sdist archive (.tar.gz or .zip)")
    roots = [p for p in into.iterdir() if p.is_dir()]
    return roots[0] if len(roots) == 1 else into


def _sdist_dest(pin: str, sha256: str) -> Path:
    name, version = parse_pin(pin)
    return cache_root() / "sources" / f"{name}-{version}-{sha256[:16]}"


def _commit_dest(url: str, commit: str, version: str | None) -> tuple[Path, str]:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", url.rstrip("/").rsplit("/", 1)[-1]).strip("-") or "repo"
    tail = f"-v{version}" if version else ""
    return cache_root() / "sources" / f"git-{slug}-{commit[:16]}{tail}", slug


def _complete(dest: Path) -> Path | None:
    """The project root in a completed cache folder, or None."""
    marker = dest / ".complete"
    if not marker.is_file():
        return None
    rel = marker.read_text().strip()
    return dest / rel if rel not in ("", ".") else dest


def cached(pin: str, sha256: str = "", url: str = "", commit: str = "", version=None):
    """The reference already in the cache (an sdist by ``pin`` and ``sha256``, or a git
    ``commit`` of ``url``), or None: a look at the disk, never the network."""
    if url:
        return _complete(_commit_dest(url, commit, version)[0])
    return _complete(_sdist_dest(pin, sha256))


def fetch_sdist(pin: str, sha256: str) -> Path:
    """The unpacked project root of the sdist ``pin``, downloaded once and verified."""
    name, version = parse_pin(pin)
    dest = _sdist_dest(pin, sha256)
    marker = dest / ".complete"
    with file_lock(cache_root() / "sources" / f".{name}-{version}.lock"):
        if not marker.is_file():
            if dest.exists():
                shutil.rmtree(dest)  # half-unpacked by a killed session
            with tempfile.TemporaryDirectory(prefix="e2ebench-sdist-") as tmp:
                archive = _download(name, version, Path(tmp))
                actual = sha256_of(archive)
                if actual != sha256.lower():
                    raise SourceError(
                        f"the sdist {archive.name} has sha256 {actual}, not the pinned "
                        f"{sha256}; fix sha256 in task.toml if the pin is right"
                    )
                staging = dest.with_name(dest.name + ".partial")
                shutil.rmtree(staging, ignore_errors=True)
                staging.mkdir(parents=True)
                root = _unpack(archive, staging)
                staging.rename(dest)
                (dest / ".complete").write_text(str(root.relative_to(staging)) + "\n")
    return _complete(dest) or dest


def fetch_commit(url: str, commit: str, version: str | None = None) -> Path:
    """The checkout of ``commit`` of the git repository ``url`` (a URL or a local path),
    fetched once into the cache, without its ``.git`` folder.

    No hook, filter or submodule of the repository runs: a bare fetch and a checkout with
    hooks off. ``version`` (``[source] version``): the checkout gets a ``PKG-INFO`` with it,
    the fallback setuptools-scm and hatch-vcs read when there is no ``.git`` to take the
    version from (their builds fail without one).
    """
    if not _COMMIT.match(commit):
        raise SourceError(f"commit {commit!r} is not 40 lower-case hex digits")
    if version is not None and not VERSION.fullmatch(version):
        raise SourceError(f"version {version!r} is not a version (PEP 440, e.g. 1.2.3)")
    dest, slug = _commit_dest(url, commit, version)
    marker = dest / ".complete"
    with file_lock(cache_root() / "sources" / f".git-{slug}-{commit[:16]}.lock"):
        if not marker.is_file():
            if dest.exists():
                shutil.rmtree(dest)
            staging = dest.with_name(dest.name + ".partial")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            _git(staging, "init", "--quiet")
            fetched = _git(staging, "fetch", "--quiet", "--depth=1", url, commit, check=False)
            if fetched.returncode != 0:
                shutil.rmtree(staging, ignore_errors=True)
                raise FetchError(
                    f"could not fetch commit {commit} of {url}; is the git host reachable? "
                    f"(git says: {fetched.stderr.strip().splitlines()[-1:] or ['nothing']})"
                )
            _git(staging, "checkout", "--quiet", "--detach", commit)
            shutil.rmtree(staging / ".git")
            if version and not (staging / "PKG-INFO").exists():
                (staging / "PKG-INFO").write_text(
                    f"Metadata-Version: 1.0\nName: {slug}\nVersion: {version}\n"
                )
            staging.rename(dest)
            marker.write_text(".\n")
    return dest


def _git(where: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    try:
        done = subprocess.run(
            ["git", "-c", "core.hooksPath=/dev/null", *args],
            cwd=where,
            env=env,
            capture_output=True,
            text=True,
            timeout=DOWNLOAD_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise FetchError(f"git {args[0]} timed out after {DOWNLOAD_TIMEOUT}s") from None
    if check and done.returncode != 0:
        raise SourceError(f"git {args[0]} failed: {done.stderr.strip()[-500:]}")
    return done
