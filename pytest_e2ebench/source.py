"""Reference implementations that are real PyPI projects (E2EDevBench's construction).

A task may name its reference by ``[source] pypi = "name==version"`` and ``sha256``. The sdist
(never a wheel: the tests ship only in source distributions) is downloaded with
``pip download``, its hash checked, and it is unpacked into a cache outside the repository
(``$E2EBENCH_CACHE`` or ``~/.cache/pytest-e2ebench``). Nothing of the project is committed.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from .errors import E2EBenchError

DOWNLOAD_TIMEOUT = 600
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[A-Za-z0-9.+!_-]+)$")


class SourceError(E2EBenchError):
    """A PyPI reference could not be fetched or does not match its pin; the text says the fix."""


def cache_root() -> Path:
    """Where unpacked sdists are kept."""
    env = os.environ.get("E2EBENCH_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "pytest-e2ebench"


def parse_pin(pin: str) -> tuple[str, str]:
    """``"name==1.2"`` -> ``("name", "1.2")``; ValueError for anything else."""
    match = _PIN.match(pin.strip())
    if not match:
        raise ValueError(pin)
    return match["name"], match["version"]


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@contextlib.contextmanager
def _lock(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _download(name: str, version: str, into: Path) -> Path:
    args = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--no-binary",
        ":all:",
        "--disable-pip-version-check",
        "--quiet",
        "-d",
        str(into),
        f"{name}=={version}",
    ]
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SourceError(
            f"pip download {name}=={version} timed out after "
            f"{DOWNLOAD_TIMEOUT}s; is the package index reachable?"
        ) from None
    files = [p for p in into.iterdir() if p.is_file()]
    if done.returncode != 0 or not files:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        raise SourceError(
            f"could not download the sdist of {name}=={version} from the package "
            f"index; check the pin and your network or pip configuration.\n{tail}"
        )
    return files[0]


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


def fetch_sdist(pin: str, sha256: str) -> Path:
    """The unpacked project root of the sdist ``pin``, downloaded once and verified."""
    name, version = parse_pin(pin)
    dest = cache_root() / "sources" / f"{name}-{version}-{sha256[:16]}"
    marker = dest / ".complete"
    with _lock(cache_root() / "sources" / f".{name}-{version}.lock"):
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
    rel = marker.read_text().strip()
    return dest / rel if rel not in ("", ".") else dest
