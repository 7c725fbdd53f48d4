"""Document statistics (R16)."""

import pytest

from mdtoc import Stats, stats

pytestmark = pytest.mark.requirement("R16")

EXAMPLE = "# T\n\nHello world, see [docs](d.md).\n\n## A\n## B\n"


def test_stats_spec_example():
    assert stats(EXAMPLE) == Stats(
        lines=6, words=7, headings=3, levels={1: 1, 2: 2}, code_blocks=0, links=1, images=0
    )
    assert stats(EXAMPLE).format() == (
        "lines: 6\nwords: 7\nheadings: 3 (h1: 1, h2: 2)\ncode blocks: 0\nlinks: 1\nimages: 0\n"
    )


def test_stats_without_headings_and_empty_document():
    assert stats("").format() == (
        "lines: 0\nwords: 0\nheadings: 0\ncode blocks: 0\nlinks: 0\nimages: 0\n"
    )
    assert stats("").levels == {}


@pytest.mark.parametrize(
    ("text", "lines"), [("a", 1), ("a\n", 1), ("a\n\n", 2), ("\n", 1), ("a\nb", 2)]
)
def test_line_count(text, lines):
    assert stats(text).lines == lines


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("one two  three\n", 3),
        ("# Heading\n- item\n1. first\n", 3),
        ("42 is 1. answer, don't v2 e.g.\n", 5),
        ("word -- \u00e9t\u00e9 \u2014 ok!\n", 3),
        ("[two words](https://example.org/long/path) ![alt](x.png)\n", 3),
        ("before\n```\nmany words in code\n```\nafter\n", 2),
        ("`inline code` counts\n", 3),
    ],
)
def test_word_count(text, words):
    assert stats(text).words == words


def test_code_blocks_links_and_images():
    text = (
        "# Doc\n"
        "```\n[in](code.md)\n```\n"
        "~~~python\nx = 1\n~~~\n"
        "[a](a.md) ![b](b.png) `[c](c.md)` [d](#doc)\n"
        "```\nunclosed [e](e.md)\n"
    )
    result = stats(text)
    assert (result.code_blocks, result.links, result.images) == (3, 2, 1)


def test_heading_levels_sorted_in_format():
    text = "### c\n# a\n###### f\n### c2\n```\n## hidden\n```\n"
    result = stats(text)
    assert result.levels == {1: 1, 3: 2, 6: 1}
    assert result.format().splitlines()[2] == "headings: 4 (h1: 1, h3: 2, h6: 1)"


def test_cli_stats(cli, write):
    result = cli("stats", write(EXAMPLE))
    assert result.code == 0
    assert result.err == ""
    assert result.out == (
        "lines: 6\nwords: 7\nheadings: 3 (h1: 1, h2: 2)\ncode blocks: 0\nlinks: 1\nimages: 0\n"
    )


def test_cli_stats_crlf_file(cli, write):
    result = cli("stats", write("# A\r\n\r\ntext here\r\n"))
    assert result.out == (
        "lines: 3\nwords: 3\nheadings: 1 (h1: 1)\ncode blocks: 0\nlinks: 0\nimages: 0\n"
    )
