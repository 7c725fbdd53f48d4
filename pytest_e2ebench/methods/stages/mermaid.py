"""Mermaid diagrams parsed by Mermaid's own parser, in the sandbox.

No Python package parses Mermaid's class and sequence diagrams: the grammar lives in the
``mermaid`` npm package (its jison parsers), and ``@mermaid-js/parser`` covers only the newer
diagram types (pie, packet, architecture...), not class or sequence diagrams. So the harness
installs ``mermaid`` (plus ``jsdom``, whose window Mermaid's sanitizer needs outside a browser)
with npm, once, into its cache, with ``--ignore-scripts`` (no install script runs), and runs a
small harness-written Node script that calls ``mermaid.parse`` and reads the parsed diagram's
database (class names, their methods, the sequence's participants).

The diagrams are the agent's text: Node runs in the sandbox with no network, reading the
diagrams from a harness folder and writing its JSON answer to another, which the harness reads
bounded. What comes back is data (names), validated before use.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import shutil
import subprocess
from pathlib import Path

from ...environment.source import cache_root
from ...errors import InfrastructureError
from ...isolation.intake import read_regular
from ...isolation.sandbox import Sandbox
from ...run.cache import file_lock
from ...untrusted.parse import loads_json

# Pinned: a parser upgrade must not change grades silently.
PACKAGES = ("mermaid@11.17.2", "jsdom@26.1.0")
INSTALL_TIMEOUT = 600
PARSE_TIMEOUT = 120.0
MAX_ANSWER_BYTES = 4 << 20
MAX_NAMES = 5_000
SCRIPT = "e2ebench-parse.mjs"
_SCRIPT_TEXT = """\
import { readFileSync, writeFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';
const dom = new JSDOM('');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
const [input, output] = process.argv.slice(2);
const diagrams = JSON.parse(readFileSync(input, 'utf8'));
const answer = {};
for (const [name, text] of Object.entries(diagrams)) {
  try {
    const parsed = await mermaid.parse(text);
    const db = (await mermaid.mermaidAPI.getDiagramFromText(text)).db;
    const found = {
      ok: true, type: parsed.diagramType, classes: [], methods: [], participants: [],
    };
    if (typeof db.getClasses === 'function') {
      for (const cls of db.getClasses().values()) {
        found.classes.push(String(cls.id));
        for (const m of cls.methods || []) found.methods.push(`${cls.id}.${m.id}`);
      }
    }
    if (typeof db.getActors === 'function') {
      for (const key of db.getActors().keys()) found.participants.push(String(key));
    }
    answer[name] = found;
  } catch (err) {
    const message = String((err && err.message) || err);
    answer[name] = { ok: false, error: message.split('\\n').slice(0, 4).join('\\n') };
  }
}
writeFileSync(output, JSON.stringify(answer));
"""


@dataclasses.dataclass(frozen=True)
class Parsed:
    """One diagram as Mermaid parsed it."""

    ok: bool
    type: str = ""
    error: str = ""
    classes: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()  # "Class.method"
    participants: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON-able form."""
        return dataclasses.asdict(self)


def parser_dir() -> Path:
    """The harness's Mermaid install (made on first use): node_modules and the script."""
    dest = cache_root() / f"mermaid-{PACKAGES[0].split('@')[1]}"
    marker = dest / ".complete"
    with file_lock(cache_root() / ".mermaid.lock"):
        if not marker.is_file():
            _install(dest)
            marker.write_text(" ".join(PACKAGES) + "\n")
        script = dest / SCRIPT
        if not script.is_file() or script.read_text() != _SCRIPT_TEXT:
            script.write_text(_SCRIPT_TEXT)  # the harness's script, as this version has it
            script.chmod(0o644)
    return dest


def _install(dest: Path) -> None:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise InfrastructureError(
            "design", "node and npm are needed to parse Mermaid diagrams; apt-get install npm"
        )
    if dest.exists():
        shutil.rmtree(dest)  # half-installed by a killed session
    dest.mkdir(parents=True)
    (dest / "package.json").write_text('{"private": true, "type": "module"}\n')
    args = [npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--save-exact"]
    try:
        done = subprocess.run(
            [*args, *PACKAGES],
            cwd=dest,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        done = None
    if done is None or done.returncode != 0:
        tail = "" if done is None else "\n".join(done.stderr.strip().splitlines()[-6:])
        raise InfrastructureError(
            "design",
            f"npm install {' '.join(PACKAGES)} failed; is the npm registry reachable?\n{tail}",
        )
    # readable by the sandbox user
    for path in (dest, *dest.rglob("*")):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o444 | (0o111 if path.is_dir() else 0))


def parse(
    diagrams: dict[str, str], work: Path, sandbox: Sandbox, *, untrusted: bool = False
) -> dict[str, Parsed]:
    """Parse each named diagram text with Mermaid (in ``sandbox``); ``work`` is a new folder.

    A parser that gives no answer (killed at its time limit, crashed) is an infrastructure
    error for the task's own diagrams; for ``untrusted`` ones (an agent's, parsed in a process
    of their own) it is their failure: each comes back not ok, saying why.
    """
    if not diagrams:
        return {}
    where = parser_dir()
    inbox, outbox = work / "in", work / "out"
    inbox.mkdir(parents=True)
    (inbox / "diagrams.json").write_text(json.dumps(diagrams))
    os.chmod(inbox, 0o755)
    os.chmod(inbox / "diagrams.json", 0o644)
    answer = outbox / "answer.json"
    # V8 reserves far more address space than it uses (as Chromium does for web tasks).
    roomy = dataclasses.replace(
        sandbox,
        limits=dataclasses.replace(sandbox.limits, address_space=resource.RLIM_INFINITY),
    )
    done = roomy.run(
        ["node", str(where / SCRIPT), str(inbox / "diagrams.json"), str(answer)],
        cwd=outbox,
        env={"PATH": "/usr/bin:/bin", "HOME": str(outbox), "LANG": "C.UTF-8"},
        timeout=PARSE_TIMEOUT,
        log=work / "parse.log",
        writable=[outbox],
        readable=[where, inbox],
    )
    try:
        data = loads_json(read_regular(answer, MAX_ANSWER_BYTES), "the Mermaid answer")
    except (OSError, ValueError):
        status = "timed out" if done.timed_out else f"exit status {done.returncode}"
        if untrusted:
            why = f"the Mermaid parser gave no answer on these diagrams ({status})"
            return dict.fromkeys(diagrams, Parsed(ok=False, error=why))
        raise InfrastructureError(
            "design", f"the Mermaid parser gave no answer ({status}):\n{done.tail(5)}"
        ) from None
    return {name: _parsed(data.get(name)) for name in diagrams}


def _parsed(found: object) -> Parsed:
    """The node script's answer for one diagram, validated (names are strings, bounded)."""
    if not isinstance(found, dict):
        return Parsed(ok=False, error="the parser gave no answer for this diagram")
    if not found.get("ok"):
        return Parsed(ok=False, error=str(found.get("error", ""))[:1000])

    def names(key: str) -> tuple[str, ...]:
        raw = found.get(key)
        if not isinstance(raw, list):
            return ()
        return tuple(str(n)[:200] for n in raw[:MAX_NAMES])

    return Parsed(
        ok=True,
        type=str(found.get("type", ""))[:50],
        classes=names("classes"),
        methods=names("methods"),
        participants=names("participants"),
    )
