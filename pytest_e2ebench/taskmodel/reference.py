"""Where a task's reference is: its own ``reference/`` folder, or a description of one that is
fetched, not committed (``[source] pypi`` and ``sha256``, or ``[source] git`` and ``commit``).

Loading a task only reads and checks the description (no network, no download): collection
stays pure and one task's unreachable index never stops the others (issue 28.6). A run
fetches the described reference as its first stage (:func:`RemoteReference.fetch`, cached on
disk by :mod:`pytest_e2ebench.environment.source`), where the reference agent, the census, the
planted values and the mutants need its files.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ..environment.source import (
    VERSION,
    FetchError,
    SourceError,
    cached,
    fetch_commit,
    fetch_sdist,
    parse_pin,
)
from ..errors import InfrastructureError, TaskError

REFERENCE_DIR = "reference"
_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_PYPI_FIX = '[source] pypi = "name==1.2.3" and sha256 = "<sha256 of the sdist>"'
_GIT_FIX = '[source] git = "https://github.com/owner/repo" and commit = "<40 hex digits>"'


@dataclasses.dataclass(frozen=True)
class RemoteReference:
    """A reference described by task.toml's ``[source]`` table and fetched by a run.

    ``pin`` is what the record keeps (``name==1.2`` or ``git+URL@commit``); ``sha256`` pins a
    PyPI sdist; ``url`` (a URL, or a local repository resolved against the task folder),
    ``commit`` and ``version`` a git commit.
    """

    pin: str
    root: Path  # the task folder
    sha256: str = ""
    url: str = ""
    commit: str = ""
    version: str | None = None

    @property
    def label(self) -> str:
        """Where the task comes from, for the catalog and the record's ``source``."""
        return self.pin.removeprefix("git+") if self.url else f"PyPI {self.pin}"

    def fetch(self) -> Path:
        """The reference's files (downloaded once into the cache, then read from it).

        InfrastructureError when the index or the git host does not answer (the network, not
        the task); TaskError when what it answers does not match the pin (the text says the
        fix in task.toml).
        """
        try:
            if self.url:
                return fetch_commit(self.url, self.commit, self.version)
            return fetch_sdist(self.pin, self.sha256)
        except FetchError as exc:
            what = f"git {self.origin} @ {self.commit[:12]}" if self.url else self.pin
            raise InfrastructureError("source", f"{self.where}: [source] {what}: {exc}") from None
        except SourceError as exc:
            what = f"git {self.origin}" if self.url else self.pin
            raise TaskError(str(self.root), [f"{self.where}: [source] {what}: {exc}"]) from None

    def cached(self) -> Path | None:
        """The reference's files if an earlier fetch left them in the cache (no network)."""
        return cached(self.pin, self.sha256, self.url, self.commit, self.version)

    @property
    def origin(self) -> str:
        """A git reference's repository as task.toml names it."""
        return self.pin.removeprefix("git+").rpartition("@")[0] if self.url else ""

    @property
    def where(self) -> str:
        """``<task>/task.toml``, how a problem names the file."""
        return f"{self.root.name}/task.toml"


def describe_reference(
    root: Path, source: dict | None, problems: list[str], *, optional: bool = False
) -> tuple[Path | None, RemoteReference | None]:
    """The committed ``reference/`` folder, or the description of a fetched one (checked
    here, fetched by the run); (None, None) when there is none or the description is wrong
    (the problems say why)."""
    name = root.name
    if source is None:
        if (root / REFERENCE_DIR).is_dir():
            return root / REFERENCE_DIR, None
        if not optional:  # an imported app task (RealDevBench) has no reference app
            problems.append(
                f"{name}/{REFERENCE_DIR}/: missing; add the reference implementation "
                'or name a PyPI project with [source] pypi = "name==version"'
            )
        return None, None
    git = "git" in source or "commit" in source
    remote = _git(root, source, problems) if git else _pypi(root, source, problems)
    if remote is not None and (root / REFERENCE_DIR).exists():
        problems.append(
            f"{name}/{REFERENCE_DIR}/: a {'git' if git else 'PyPI'}-sourced task must not "
            "commit the reference; delete the folder"
        )
        return None, None
    return None, remote


def _pypi(root: Path, source: dict, problems: list[str]) -> RemoteReference | None:
    """``[source] pypi = "name==1.2.3"`` and ``sha256``: one pinned sdist of the index."""
    where = f"{root.name}/task.toml"
    pin, sha = source.get("pypi"), source.get("sha256")
    if not isinstance(pin, str):
        problems.append(f"{where}: field 'source.pypi' is missing; write {_PYPI_FIX}")
        return None
    try:
        parse_pin(pin)
    except ValueError:
        problems.append(
            f"{where}: field 'source.pypi' = {pin!r} must pin one version: \"name==1.2.3\""
        )
        return None
    if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
        problems.append(
            f"{where}: field 'source.sha256' is missing or not 64 hex digits; write "
            "the sha256 of the sdist (pip download --no-binary :all: --no-deps "
            f"{pin}; sha256sum the file)"
        )
        return None
    return RemoteReference(pin, root, sha256=sha)


def _git(root: Path, source: dict, problems: list[str]) -> RemoteReference | None:
    """``[source] git = URL-or-path`` and ``commit``: the reference is that commit's tree."""
    where = f"{root.name}/task.toml"
    url, commit, version = source.get("git"), source.get("commit"), source.get("version")
    if not isinstance(url, str) or not url.strip():
        problems.append(f"{where}: field 'source.git' is missing; write {_GIT_FIX}")
        return None
    if not isinstance(commit, str) or not _COMMIT.fullmatch(commit):
        problems.append(
            f"{where}: field 'source.commit' = {commit!r} must be the full commit id "
            f"(40 lower-case hex digits: git rev-parse HEAD); write {_GIT_FIX}"
        )
        return None
    if version is not None and (not isinstance(version, str) or not VERSION.fullmatch(version)):
        problems.append(
            f"{where}: [source] git {url}: field 'source.version' = {version!r} must be a "
            "version (PEP 440, e.g. 1.2.3)"
        )
        return None
    local = url
    if not re.match(r"^(https?|git|ssh)://", url) and not url.startswith("/"):
        local = str((root / url).resolve())  # a local repository, relative to the task
    return RemoteReference(f"git+{url}@{commit}", root, url=local, commit=commit, version=version)
