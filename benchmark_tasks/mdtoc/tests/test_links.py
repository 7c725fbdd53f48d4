"""Link extraction, anchor checking, relative file links and check-links (R10-R13)."""

import pytest

from mdtoc import BrokenLink, Link, check_links, links

# --- R10: link extraction -----------------------------------------------------------


@pytest.mark.requirement("R10")
def test_links_spec_example():
    text = 'See [the guide](guide.md "Guide") and ![logo](img/logo.png).\n'
    assert links(text) == [
        Link(1, "the guide", "guide.md", False),
        Link(1, "logo", "img/logo.png", True),
    ]


@pytest.mark.requirement("R10")
def test_links_skip_code_spans_and_fenced_blocks():
    text = "`[not](a-link)` but [yes](a.md)\n```\n[hidden](b.md)\n```\n[after](#x)\n"
    assert links(text) == [Link(1, "yes", "a.md", False), Link(5, "after", "#x", False)]


@pytest.mark.requirement("R10")
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("[empty]()", [Link(1, "empty", "", False)]),
        ("[blank](   )", [Link(1, "blank", "", False)]),
        ("[sp]( spaced.md  'title' )", [Link(1, "sp", "spaced.md", False)]),
        ("[](#top)", [Link(1, "", "#top", False)]),
        ("[a](1.md)[b](2.md)", [Link(1, "a", "1.md", False), Link(1, "b", "2.md", False)]),
        ("[ref][id] and [text] (space.md)", []),
        ("<https://example.org>", []),
    ],
)
def test_link_forms(line, expected):
    assert links(line) == expected


@pytest.mark.requirement("R10")
def test_links_in_headings_and_line_numbers():
    text = "# Title\n\n## See [docs](docs/index.md)\ntext\n[x](https://x.org)"
    assert links(text) == [
        Link(3, "docs", "docs/index.md", False),
        Link(5, "x", "https://x.org", False),
    ]


# --- R11: anchor checking ------------------------------------------------------------


@pytest.mark.requirement("R11")
def test_anchor_spec_example():
    text = "# Intro\n## Intro\n[a](#intro-1) [b](#Intro) [c](#missing)\n"
    assert check_links(text) == [
        BrokenLink(3, "#Intro", "broken anchor"),
        BrokenLink(3, "#missing", "broken anchor"),
    ]


@pytest.mark.requirement("R11")
def test_valid_anchors_are_not_reported():
    text = (
        "# Getting Started\n"
        "## C++ & Python\n"
        "[a](#getting-started) [b](#c--python) [top](#) [e](#c)\n"
        "## c++\n"
    )
    assert check_links(text) == []


@pytest.mark.requirement("R11")
def test_percent_encoded_anchor():
    text = "# \u00dcber uns\n[ok](#%C3%BCber-uns) [bad](#%C3%BCber)\n"
    assert check_links(text) == [BrokenLink(2, "#%C3%BCber", "broken anchor")]


@pytest.mark.requirement("R11")
def test_urls_absolute_and_empty_targets_are_never_reported(tmp_path):
    text = (
        "[a](https://example.org/#nope) [b](mailto:a@b.c) [c](/abs/missing.md)\n"
        "[d]() [e](ftp://host/x) [f](C:relative)\n"
    )
    assert check_links(text) == []
    assert check_links(text, tmp_path) == []


@pytest.mark.requirement("R11")
def test_anchors_to_headings_in_code_blocks_are_broken():
    text = "# Real\n```\n# Fake\n```\n[a](#fake) [b](#real)\n"
    assert check_links(text) == [BrokenLink(5, "#fake", "broken anchor")]


@pytest.mark.requirement("R11")
def test_anchor_in_table_of_contents_after_update():
    text = "- [Intro](#intro)\n- [Intro](#intro-1)\n- [Intro](#intro-2)\n# Intro\n# Intro\n"
    assert check_links(text) == [BrokenLink(3, "#intro-2", "broken anchor")]


# --- R12: relative file links -----------------------------------------------------------


@pytest.fixture
def site(tmp_path):
    (tmp_path / "guide.md").write_text("# Setup\n## Run it\n", encoding="utf-8")
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "logo.png").write_bytes(b"\x89PNG")
    (tmp_path / "my notes.md").write_text("# Notes\n", encoding="utf-8")
    (tmp_path / "UPPER.MD").write_text("# Shout\n", encoding="utf-8")
    (tmp_path / "data.txt").write_text("# Not markdown\n", encoding="utf-8")
    return tmp_path


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    "target",
    [
        "guide.md",
        "guide.md#setup",
        "guide.md#run-it",
        "./guide.md",
        "img",
        "img/logo.png",
        "img#anything",
        "my%20notes.md#notes",
        "UPPER.MD#shout",
        "data.txt#whatever",
        "guide.md#",
    ],
)
def test_existing_file_links(site, target):
    assert check_links(f"[x]({target})\n", site) == []


@pytest.mark.requirement("R12")
@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("nothere.md", "missing file"),
        ("img/nothere.png", "missing file"),
        ("my%20note.md", "missing file"),
        ("nothere.md#setup", "missing file"),
        ("guide.md#nope", "broken anchor"),
        ("guide.md#Setup", "broken anchor"),
        ("UPPER.MD#nope", "broken anchor"),
    ],
)
def test_broken_file_links(site, target, reason):
    assert check_links(f"text\n[x]({target})\n", site) == [BrokenLink(2, target, reason)]


@pytest.mark.requirement("R12")
def test_file_links_unchecked_without_base_dir():
    assert check_links("[a](nothere.md) [b](#nope)\n") == [BrokenLink(1, "#nope", "broken anchor")]


@pytest.mark.requirement("R12")
def test_base_dir_as_string_and_subdirectory(site):
    docs = site / "docs"
    docs.mkdir()
    text = "[up](../guide.md#setup) [bad](guide.md)\n"
    assert check_links(text, str(docs)) == [BrokenLink(1, "guide.md", "missing file")]


# --- R13: check-links command -------------------------------------------------------------


@pytest.mark.requirement("R13")
def test_check_links_output_format(cli, write):
    write("# Other\n", "other.md")
    path = write(
        "# Intro\n\n[a](#intro) [b](#missing)\n\n[c](b.md) [d](other.md#x) [e](other.md#other)\n"
    )
    result = cli("check-links", path)
    assert result.code == 1
    assert result.err == ""
    assert result.out == (
        f"{path}:3: broken anchor #missing\n"
        f"{path}:5: missing file b.md\n"
        f"{path}:5: broken anchor other.md#x\n"
    )


@pytest.mark.requirement("R13")
def test_check_links_clean_files(cli, write):
    first = write("# A\n[a](#a)\n", "a.md")
    second = write("[back](a.md#a) [web](https://example.org)\n", "b.md")
    result = cli("check-links", first, second)
    assert (result.code, result.out, result.err) == (0, "", "")


@pytest.mark.requirement("R13")
def test_check_links_multiple_files_in_argument_order(cli, write):
    first = write("[x](#x)\n", "z.md")
    second = write("\n[y](#y)\n", "sub/a.md")
    result = cli("check-links", first, second)
    assert result.code == 1
    assert result.out == f"{first}:1: broken anchor #x\n{second}:2: broken anchor #y\n"


@pytest.mark.requirement("R13")
def test_check_links_resolves_relative_to_each_file(cli, write):
    write("# Deep\n", "sub/deep.md")
    path = write("[d](deep.md#deep) [up](../top.md)\n", "sub/index.md")
    write("# Top\n", "top.md")
    result = cli("check-links", path)
    assert (result.code, result.out) == (0, "")


@pytest.mark.requirement("R13")
def test_check_links_relative_path_argument(cli, write, tmp_path, monkeypatch):
    write("[a](nothere.md)\n", "docs/readme.md")
    monkeypatch.chdir(tmp_path)
    result = cli("check-links", "docs/readme.md")
    assert (result.code, result.out) == (1, "docs/readme.md:1: missing file nothere.md\n")


@pytest.mark.requirement("R13")
def test_check_links_unreadable_file_continues(cli, write, tmp_path):
    missing = str(tmp_path / "missing.md")
    broken = write("[a](#a)\n", "broken.md")
    good = write("# A\n[a](#a)\n", "good.md")
    result = cli("check-links", missing, broken, good)
    assert result.code == 2
    assert result.err == f"mdtoc: error: cannot read '{missing}'\n"
    assert result.out == f"{broken}:1: broken anchor #a\n"


@pytest.mark.requirement("R13")
def test_check_links_unreadable_file_alone(cli, tmp_path):
    missing = str(tmp_path / "missing.md")
    result = cli("check-links", missing)
    assert (result.code, result.out) == (2, "")
    assert result.err == f"mdtoc: error: cannot read '{missing}'\n"
