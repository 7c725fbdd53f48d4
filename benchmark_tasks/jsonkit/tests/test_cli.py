"""Command-line interface (R18-R19)."""

import json
import os
import subprocess
import sys

import pytest

from jsonkit.cli import main


def write(tmp_path, name, value):
    path = tmp_path / name
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return str(path)


def run_main(argv):
    """Return main's exit status whether it returns it or raises SystemExit."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


# --- R18: commands and output -----------------------------------------------------------------

@pytest.mark.requirement("R18")
def test_patch_command(tmp_path, capsys):
    doc = write(tmp_path, "doc.json", {"b": 1, "a": [1, 2]})
    patch = write(tmp_path, "p.json", [{"op": "add", "path": "/a/-", "value": 3.0}])
    assert main(["patch", doc, patch]) == 0
    captured = capsys.readouterr()
    assert captured.out == '{"a":[1,2,3],"b":1}\n'


@pytest.mark.requirement("R18")
def test_patch_command_with_indent(tmp_path, capsys):
    doc = write(tmp_path, "doc.json", {"b": 1, "a": [1, 2], "é": "ü"})
    patch = write(tmp_path, "p.json", [{"op": "remove", "path": "/a/0"}])
    assert main(["patch", "--indent", "2", doc, patch]) == 0
    expected = {"a": [2], "b": 1, "é": "ü"}
    assert capsys.readouterr().out == json.dumps(expected, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.requirement("R18")
def test_indent_after_files(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"x": 1})
    b = write(tmp_path, "b.json", {"x": 2})
    assert main(["diff", a, b, "--indent", "0"]) == 0
    expected = [{"op": "replace", "path": "/x", "value": 2}]
    assert capsys.readouterr().out == json.dumps(expected, indent=0, sort_keys=True) + "\n"


@pytest.mark.requirement("R18")
def test_diff_command(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"list": [1, 2, 3], "gone": True})
    b = write(tmp_path, "b.json", {"list": [1, 3], "new": "x"})
    assert main(["diff", a, b]) == 0
    assert capsys.readouterr().out == (
        '[{"op":"remove","path":"/gone"},{"op":"remove","path":"/list/1"},'
        '{"op":"add","path":"/new","value":"x"}]\n'
    )


@pytest.mark.requirement("R18")
def test_diff_identical_documents(tmp_path, capsys):
    a = write(tmp_path, "a.json", {"x": [1, 2.0]})
    b = write(tmp_path, "b.json", {"x": [1.0, 2]})
    assert main(["diff", a, b]) == 0
    assert capsys.readouterr().out == "[]\n"


@pytest.mark.requirement("R18")
def test_merge_command(tmp_path, capsys):
    doc = write(tmp_path, "doc.json", {"title": "Hello", "author": {"name": "A", "email": "a@x"}, "tags": ["x"]})
    mp = write(tmp_path, "mp.json", {"title": "Hi", "author": {"email": None}, "tags": ["y"], "n": 1.5})
    assert main(["merge", doc, mp]) == 0
    assert capsys.readouterr().out == '{"author":{"name":"A"},"n":1.5,"tags":["y"],"title":"Hi"}\n'


@pytest.mark.requirement("R18")
def test_module_entry_point_with_stdin(tmp_path):
    patch = write(tmp_path, "p.json", [{"op": "replace", "path": "/a", "value": [True, None]}])
    proc = subprocess.run(
        [sys.executable, "-m", "jsonkit", "patch", "-", patch],
        input='{"a": 1, "b": "\\u00e9"}', capture_output=True, text=True, encoding="utf-8", timeout=20,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '{"a":[true,null],"b":"é"}\n'


# --- R19: errors and exit codes ---------------------------------------------------------------

@pytest.mark.requirement("R19")
def test_failing_patch_exit_1(tmp_path, capsys):
    doc = write(tmp_path, "doc.json", {"a": 1})
    patch = write(tmp_path, "p.json", [{"op": "test", "path": "/a", "value": 1}, {"op": "remove", "path": "/b"}])
    assert main(["patch", doc, patch]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("jsonkit: error: ")
    assert "operation 1" in captured.err


@pytest.mark.requirement("R19")
def test_malformed_patch_exit_1(tmp_path, capsys):
    doc = write(tmp_path, "doc.json", {"a": 1})
    patch = write(tmp_path, "p.json", [{"op": "jump", "path": "/a"}])
    assert main(["patch", doc, patch]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "operation 0" in captured.err


@pytest.mark.requirement("R19")
def test_missing_file_exit_2(tmp_path, capsys):
    doc = write(tmp_path, "doc.json", {"a": 1})
    missing = str(tmp_path / "absent.json")
    assert main(["merge", doc, missing]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "absent.json" in captured.err
    assert captured.err.startswith("jsonkit: error: ")


@pytest.mark.requirement("R19")
@pytest.mark.parametrize("content", ['{"a": ', "NaN", '{"a": Infinity}', "[-Infinity]", "[1e400]", ""])
def test_invalid_json_exit_2(tmp_path, capsys, content):
    doc = write(tmp_path, "bad.json", content)
    other = write(tmp_path, "ok.json", {})
    assert main(["diff", other, doc]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "invalid JSON" in captured.err
    assert "bad.json" in captured.err


@pytest.mark.requirement("R19")
@pytest.mark.parametrize(
    "argv",
    [
        ["frobnicate", "a.json", "b.json"],
        ["patch", "a.json"],
        ["diff", "a.json", "b.json", "c.json"],
        ["diff", "--indent", "-1", "a.json", "b.json"],
        ["diff", "--indent", "two", "a.json", "b.json"],
        ["merge", "-", "-"],
        [],
    ],
)
def test_usage_errors_exit_2(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a.json", {})
    write(tmp_path, "b.json", {})
    assert run_main(argv) == 2


@pytest.mark.requirement("R19")
def test_module_entry_point_exit_codes(tmp_path):
    doc = write(tmp_path, "doc.json", [1])
    patch = write(tmp_path, "p.json", [{"op": "remove", "path": "/5"}])
    proc = subprocess.run([sys.executable, "-m", "jsonkit", "patch", doc, patch],
                          capture_output=True, text=True, timeout=20)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "operation 0" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "jsonkit", "patch", doc], capture_output=True, text=True, timeout=20)
    assert proc.returncode == 2
