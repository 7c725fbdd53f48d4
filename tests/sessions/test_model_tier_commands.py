"""The model tier's commands and server choice (issue 42, item 4), without a model.

Every command of docs/agents.md's tier section runs as written, through a dry run
(``e2ebench model ... --dry-run``, ``pytest ... --collect-only``, tox's environment's own
commands) or ``--help`` (the benchmark): the section's cold-start command once imported a
module that had moved. ``--server auto`` picks the server by the CPU's flags.
"""

from __future__ import annotations

import configparser
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_e2ebench.tools import localmodel

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## A real model on this machine (the model tier)"
STARTS = ("e2ebench model", "pytest ", "tox ", "python benchmarks/", "nice ")


def tier_commands() -> list[str]:
    """The commands of the tier section: each line of its bash blocks (continuations
    joined, comments dropped) and each inline code span that starts like one."""
    text = (ROOT / "docs" / "agents.md").read_text()
    section = text[text.index(SECTION) : text.index("\n## ", text.index(SECTION) + 1)]
    found = []
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip().removesuffix("&").strip()
            if line and not line.startswith("#"):
                found.append(line)
    prose = re.sub(r"```.*?```", "", section, flags=re.S).replace("\n", " ")
    for span in re.findall(r"`([^`]+)`", prose):
        bare = re.sub(r"^(\w+=\S+\s+)+", "", span.replace("$(mktemp -d)", "DIR"))
        if bare.startswith(STARTS) and " " in bare and "..." not in span and "…" not in span:
            found.append(span)
    return found


def _argv(command: str, tmp_path: Path) -> tuple[list[str], dict]:
    """The command as argv and environment, with its dry-run (or help) switch."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), E2EBENCH_CACHE=str(tmp_path / "cache"))
    words = shlex.split(command.replace("$(mktemp -d)", str(tmp_path / "fresh")))
    while words and re.match(r"^\w+=", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    if words[:2] == ["nice", "-n"]:
        words = words[3:]
    if words[:2] == ["e2ebench", "model"]:
        return [sys.executable, "-m", "pytest_e2ebench.cli", *words[1:], "--dry-run"], env
    if words[0] == "pytest":
        return [sys.executable, "-m", "pytest", *words[1:], "--collect-only", "-q"], env
    if words[0] == "python":
        return [sys.executable, *words[1:], "--help"], env
    raise AssertionError(f"docs/agents.md's tier section: no dry run for {command!r}")


def _tox_commands(env_name: str) -> list[str]:
    """The commands tox.ini's ``[testenv:NAME]`` runs, its ``{env:X:default}`` at defaults."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "tox.ini")
    section = config[f"testenv:{env_name}"]
    lines = [section.get("commands_pre", ""), section.get("commands", "")]
    text = "\n".join(lines).replace("{posargs}", "")
    text = re.sub(r"\{env:\w+:([^}]*)\}", r"\1", text)
    return [line.strip() for line in text.splitlines() if line.strip()]


@pytest.mark.slow
def test_every_command_of_the_tier_section_runs_as_written(tmp_path):
    commands = tier_commands()
    assert any(c.startswith("e2ebench model serve") for c in commands), commands
    for command in commands:
        if command.startswith("tox -e "):
            expanded = _tox_commands(command.split()[2])
            assert expanded, f"tox.ini has no commands for {command!r}"
        else:
            expanded = [command]
        for each in expanded:
            argv, env = _argv(each, tmp_path)
            done = subprocess.run(
                argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
            )
            assert done.returncode == 0, (command, argv, done.stdout[-2000:], done.stderr[-2000:])
            if each.startswith("e2ebench model serve"):
                assert "server: " in done.stdout and "would run: " in done.stdout, done.stdout
    assert not (tmp_path / "cache" / "model").exists()  # a dry run downloads nothing


# /proc/cpuinfo's flags line of three CPUs (trimmed to the features that matter here)
SANDY_BRIDGE = "fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt aes xsave avx"
HASWELL = SANDY_BRIDGE + " fma f16c bmi1 bmi2 abm avx2"
ICE_LAKE = HASWELL + " avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni avx512vbmi"
SAPPHIRE_RAPIDS = ICE_LAKE + " avx_vnni avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8"


@pytest.mark.parametrize(
    ("flags", "server", "said"),
    [
        (SAPPHIRE_RAPIDS, "prebuilt", "every feature"),
        # issue 19's CPU: AVX-512 VNNI but no AVX-VNNI, where Gemma's load stopped with SIGILL
        (ICE_LAKE, "xllamacpp", "lacks amx_int8, amx_tile, avx512_bf16, avx_vnni"),
        # issue 42's: AVX2 and no AVX-512, where Qwen's load stopped with SIGILL
        (HASWELL, "xllamacpp", "avx512f"),
        (SANDY_BRIDGE, "source", "xllamacpp's AVX2 build needs abm, avx2, bmi1, bmi2, f16c, fma"),
        ("", "source", "lacks"),  # no flags: not an x86 CPU the wheels are built for
    ],
)
def test_auto_chooses_the_server_by_the_cpus_flags(tmp_path, flags, server, said):
    """Before, the default was the prebuilt server on every CPU: on one without AVX-512 it
    died with SIGILL while loading the default model."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: x\nflags\t\t: {flags}\n\nprocessor\t: 1\n")
    chosen, why = localmodel.choose_server(localmodel.cpu_flags(cpuinfo))
    assert chosen == server and said in why, why


def test_the_dry_run_names_the_server_this_cpu_gets(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), E2EBENCH_CACHE=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "pytest_e2ebench.cli", "model", "serve", "--dry-run", "--port", "0"],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    chosen, why = localmodel.choose_server()
    assert f"server: {chosen} ({why})" in done.stdout
    assert "(to download)" in done.stdout and not (tmp_path / "model").exists()
