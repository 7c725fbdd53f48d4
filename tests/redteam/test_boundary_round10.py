"""Red-team round 10 on issue 26's boundary: attacks not covered by the other files here.

Cheap: in-process checks of the parsers and the scan that guards them, and one real probe run
under pytester (no benchmark session). Each test names its attack and what closed it; attacks
that were already contained are kept only where they cost nothing.
"""

from __future__ import annotations

import ast
import copy
import gzip
import json
import os
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest
from helpers.structure import raw_reads

from pytest_e2ebench.environment import wheel
from pytest_e2ebench.environment.requirements import InstallRefused
from pytest_e2ebench.errors import AgentFileError
from pytest_e2ebench.evaluation.runner import read_probe
from pytest_e2ebench.isolation import intake
from pytest_e2ebench.probe import PROBE_DIR
from pytest_e2ebench.report.html import write_html
from pytest_e2ebench.taskmodel.testindex import defines_tests
from pytest_e2ebench.untrusted import parse
from pytest_e2ebench.untrusted.archive import unpack

DATA = Path(__file__).resolve().parents[1] / "data"
RECORDS = DATA / "results" / "tipcalc-reference-nop-dir.json"

# --- a lone surrogate from the project zone -------------------------------------------------

# A project whose function raises with half a surrogate pair in its message. The probe writes
# the message escaped (``\ud800``: ASCII, signed as usual); json gives the string back with
# the lone surrogate in it, and every UTF-8 encode of it raises.
SURROGATE_PROJECT = 'def parse(text):\n    raise ValueError("no version: \\ud800")\n'


def test_a_lone_surrogate_in_a_test_message_does_not_break_the_reports(pytester, monkeypatch):
    """Attack: a failing test's message (the project's exception) holding ``\\ud800``. Before,
    ``e2ebench`` with ``--e2e-html`` ended the whole session with ``UnicodeEncodeError`` while
    writing the report (every run's, not only the attacker's). Fixed at the boundary: the
    bounded JSON parser gives no string with a lone surrogate (U+FFFD instead)."""
    out = pytester.path / "probe.jsonl"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(PROBE_DIR), str(pytester.path)]))
    monkeypatch.setenv("E2EBENCH_PROBE_OUT", str(out))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(evil=SURROGATE_PROJECT)
    pytester.makepyfile(test_it="import evil\n\ndef test_it():\n    assert evil.parse('1.2')\n")
    pytester.runpytest_subprocess("-p", "e2ebench_probe", "-p", "no:cacheprovider")
    tests = read_probe(out, "")["tests"]
    assert [t["outcome"] for t in tests] == ["failed"]
    message = tests[0]["message"]
    assert "no version: \ufffd" in message
    message.encode("utf-8")  # raised UnicodeEncodeError before

    document = json.loads(RECORDS.read_text())
    record = copy.deepcopy(document["tasks"][0])
    record["requirements"] = [
        {"id": "R1", "verdict": "not_implemented", "failing": [{**tests[0], "nodeid": "t::x"}]}
    ]
    document["tasks"].append(record)
    write_html(pytester.path / "report.html", document)
    assert "no version: \ufffd" in (pytester.path / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"\\ud800"', "\ufffd"),
        (
            '{"\\udfff": ["a\\ud800b", {"k": "\\ud83d\\ude00"}]}',
            {"\ufffd": ["a\ufffdb", {"k": "😀"}]},
        ),
        ('"\\\\ud800"', "\\ud800"),  # an escaped backslash: text, not a surrogate
        ("[1, 2.5, null]", [1, 2.5, None]),
    ],
)
def test_the_json_parser_gives_no_lone_surrogate(text, expected):
    """Every agent-written JSON (parameters, checklists, probe records, app answers, tool
    calls, model replies) passes here: a pair stays one character, half of one is U+FFFD."""
    value = parse.loads_json(text, "f")
    assert value == expected
    json.dumps(value, ensure_ascii=False).encode("utf-8")


def test_a_deep_value_with_lone_surrogates_is_repaired_without_recursion():
    text = "[" * 64 + '"\\ud800"' + "]" * 64
    value = parse.loads_json(text, "f")
    for _ in range(64):
        value = value[0]
    assert value == "\ufffd"


# --- the scan that keeps raw readers out of the package -------------------------------------


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        # each of these read a file's text or parsed it, unseen by the scan before this round
        ("import json as j\nj.loads(x)", True),
        ("import tomllib as t\nt.load(fh)", True),
        ("import xml.etree.ElementTree as ET\nET.parse(p)", True),
        ("from xml.etree import ElementTree as ET\nET.fromstring(text)", True),
        ("import xml.etree.ElementTree\nxml.etree.ElementTree.iterparse(p)", True),
        ("from xml.dom.minidom import parseString", True),
        ("import zipfile\nzipfile.ZipFile(p)", True),
        ("import pickle as pk\npk.loads(b)", True),
        ("getattr(path, 'read_text')()", True),
        # and what reads nothing stays allowed
        ("import xml.etree.ElementTree as ET\nET.tostring(e)", False),
        ("from json import JSONDecodeError", False),
        ("import json as j\nj.dumps(x)", False),
        ("parse.read_json(root, rel)", False),
    ],
)
def test_a_renamed_or_other_parser_is_no_way_around_the_scan(source, caught):
    """Attack on the guard itself (tests/unit/test_boundary_parse.py): a module that imports
    ``json`` under another name, parses XML (a JUnit or coverage file written in the project
    zone: entity expansion) or an archive, or reads through ``getattr`` passed the scan."""
    assert bool(raw_reads(ast.parse(source))) is caught


# --- a peer's archive: headers tarfile reads before the limits see a member -----------------


def _raw_member(name: str, size: int, kind: bytes, data: bytes = b"") -> bytes:
    """One tar member as written (header, then ``size`` bytes of ``data`` padded with 'a')."""
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    body = data + b"a" * (size - len(data))
    return info.tobuf(format=tarfile.USTAR_FORMAT) + body + b"\0" * (-size % 512)


def _archive(path: Path, *members: bytes) -> Path:
    kept = _raw_member("top/data/x.txt", 1, tarfile.REGTYPE, b"x")
    with gzip.open(path, "wb") as out:
        out.write(b"".join(members) + kept + b"\0" * 1024)
    return path


def _pax(records: str) -> bytes:
    line = f" {records}\n"
    line = f"{len(line) + len(str(len(line) + 3))}{line}"
    return _raw_member("top/PaxHeader", len(line), tarfile.XHDTYPE, line.encode())


@pytest.mark.parametrize(
    ("members", "problem"),
    [
        # 300 MB of header (300 KB gzipped) took 940 MiB and 30 s: here 4 MiB, refused unread
        ([_raw_member("top/PaxHeader", 4 << 20, tarfile.XHDTYPE, b"4194304 x=")], "header of"),
        ([_raw_member("top/././@LongLink", 4 << 20, tarfile.GNUTYPE_LONGNAME)], "header of"),
        # 5,000 pax headers in a row: RecursionError out of the unpacker
        ([_pax("x=1")] * 5000, "extended headers in a row"),
        ([_raw_member("top/data/s", 512, tarfile.GNUTYPE_SPARSE)], "sparse member"),
    ],
    ids=["pax-header-bomb", "gnu-long-name-bomb", "pax-header-chain", "gnu-sparse"],
)
def test_a_peer_archive_with_a_header_bomb_is_refused_before_it_is_read(tmp_path, members, problem):
    """Attack on ``e2ebench fetch`` (a swapped archive, before its manifest is checked): the
    limits counted members' data, never the extended headers tarfile reads whole first."""
    archive = _archive(tmp_path / "a.tar.gz", *members)
    with pytest.raises(AgentFileError) as info:
        unpack(archive, tmp_path / "out", ("data",))
    assert problem in info.value.problem and not (tmp_path / "out").exists()


def test_an_archive_with_the_extended_headers_git_writes_still_unpacks(tmp_path):
    long = "data/" + "n" * 150 + ".txt"  # over ustar's 100 characters: git writes a pax path
    archive = _archive(
        tmp_path / "a.tar.gz",
        _pax("comment=0123456789abcdef"),
        _pax(f"path=top/{long}"),
        _raw_member("top/ignored", 1, tarfile.REGTYPE, b"y"),
    )
    assert sorted(unpack(archive, tmp_path / "out", ("data",))) == [long, "data/x.txt"]


# --- agent-written TOML: a dotted key --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        ".".join(["k"] * 20_000) + " = 1\n",  # 40 KB: 32 s in tomllib, in the harness's process
        "[" + ".".join(["k"] * 20_000) + "]\n",
        "a = {" + ".".join(['"k"'] * 20_000) + " = 1}\n",
        "[tool]\n" + " . ".join(["'k'"] * 20_000) + " = 1\n",
    ],
    ids=["key", "table-header", "inline-table", "spaced-literal-parts"],
)
def test_a_long_dotted_key_is_refused_before_tomllib_sees_it(tmp_path, text):
    """Attack: a ``pyproject.toml`` (read by the harness to vet the install) whose one dotted
    key has 20,000 parts. tomllib nests it without recursing, so the depth was measured only
    on the result, after a parse quadratic in the key's length: 40 KB held the harness for
    32 s, the 1 MiB the reader allows for hours. Now each dot of a key counts as a level in
    the scan before parsing."""
    assert parse.toml_depth(text) > parse.MAX_DEPTH
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(AgentFileError, match="nested deeper than 64 levels"):
        parse.read_toml(tmp_path, "pyproject.toml")


def test_dots_in_values_and_honest_dotted_keys_still_parse():
    text = (
        '[tool.ruff.lint.per-file-ignores]\n"a.b.c" = ["E501"]\n'
        "[project]\nversion = '1.2.3.4.5'\nx = [1.5, 2.5, 3.5]\nt = 1979-05-27T07:32:00.999\n"
        "site.name.first = 'a' # a.b.c.d\n"
    )
    doc = parse.loads_toml(text, "pyproject.toml")
    assert doc["project"]["site"]["name"]["first"] == "a"
    assert parse.toml_depth(text) <= 5


# --- agent-written Python, parsed in the harness's process -----------------------------------


def test_an_fstring_crowded_with_fields_is_unparseable_not_a_stall(tmp_path):
    """Attack: an agent's test module holding one f-string of 30,000 ``{1}`` (90 KB). The
    harness parses the agent's modules in its own process (which of them define tests, the
    migration's index), and Python 3.11 takes time quadratic in an f-string's fields: 13 s
    for 50,000, about 40 minutes for the 2 MiB the reader allows. Now such a module is
    unparseable (counted as a test module, as any module the parser cannot take)."""
    (tmp_path / "test_crowded.py").write_text("X = f'" + "{1}" * 30_000 + "'\n")
    assert intake.parse_python(tmp_path, "test_crowded.py") is None
    assert defines_tests(tmp_path, Path("test_crowded.py"))


def test_a_module_with_many_braces_in_many_strings_still_parses(tmp_path):
    body = "".join(f"D{i} = {{'k': f'{{{i}}}'}}\n" for i in range(3000))
    (tmp_path / "test_braces.py").write_text(body + "def test_it():\n    assert D1\n")
    assert intake.parse_python(tmp_path, "test_braces.py") is not None


# --- the built wheel: a central directory of a million entries -------------------------------


def _central_directory_bomb(path: Path, entries: int) -> Path:
    """A zip of ``entries`` empty central-directory entries (no data, ZIP64 end records)."""
    entry = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, 1, *[0] * 6)
    size = (len(entry) + 1) * entries
    end64 = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, entries, entries, size, 0)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, size, 1)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    path.write_bytes((entry + b"a") * entries + end64 + locator + end)
    return path


def test_a_wheel_with_a_huge_central_directory_is_refused_before_zipfile_reads_it(
    tmp_path, monkeypatch
):
    """Attack: the build writes a wheel whose central directory lists a million empty entries
    (44 MiB). zipfile makes an object per entry before the entry count was checked: 36 s and
    370 MiB of the harness's process (the 256 MiB a build may write: minutes, gigabytes). Now
    the entries are bounded from the signatures in the file before zipfile opens it."""
    path = _central_directory_bomb(tmp_path / "calc-0.1-py3-none-any.whl", 25_000)

    def no_zipfile(*args, **kwargs):
        raise AssertionError("zipfile opened a wheel of more than MAX_ENTRIES entries")

    monkeypatch.setattr(wheel.zipfile, "ZipFile", no_zipfile)
    with pytest.raises(InstallRefused, match="more than 20000 entries"):
        wheel.inspect(path, reserved=frozenset(), commands=frozenset(), dists=frozenset())


def test_a_wheel_whose_entry_points_have_100000_sections_is_refused_unparsed(tmp_path):
    """Attack: the built wheel's ``entry_points.txt`` (870 KB, under the 1 MiB bound) holds
    100,000 sections; configparser took 14 s of the harness's process, quadratic in them."""
    path = tmp_path / "calc-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("calc/__init__.py", "")
        zf.writestr("calc-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: calc\n")
        zf.writestr(
            "calc-0.1.dist-info/entry_points.txt", "".join(f"[s{i}]\n" for i in range(100_000))
        )
    with pytest.raises(InstallRefused, match="has over 1000 sections"):
        wheel.inspect(path, reserved=frozenset(), commands=frozenset(), dists=frozenset())


def test_a_plain_string_of_many_braces_still_parses(tmp_path):
    """A JSON blob in a plain string is no f-string: the module stays parseable (the project's
    modules are indexed for the migration from the same parser)."""
    (tmp_path / "test_blob.py").write_text("BLOB = '" + "{}" * 5000 + "'\n")
    assert intake.parse_python(tmp_path, "test_blob.py") is not None
