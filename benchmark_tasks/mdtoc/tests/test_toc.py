"""TOC generation, options, in-place updates, marker errors and check mode (R5-R9)."""

import pytest

from mdtoc import MarkerError, make_toc, update_toc

GUIDE = "# Guide\n## Install\n### Linux\n## Usage\n"
GUIDE_TOC = (
    "- [Guide](#guide)\n  - [Install](#install)\n    - [Linux](#linux)\n  - [Usage](#usage)\n"
)

# --- R5: TOC format -----------------------------------------------------------------


@pytest.mark.requirement("R5")
def test_make_toc_spec_example():
    assert make_toc(GUIDE) == GUIDE_TOC


@pytest.mark.requirement("R5")
def test_skipped_level_is_indented_by_its_depth():
    assert make_toc("# A\n### C\n## B\n") == "- [A](#a)\n    - [C](#c)\n  - [B](#b)\n"


@pytest.mark.requirement("R5")
def test_shallowest_listed_level_is_not_indented():
    text = "## One\n### One point one\n## Two\n"
    assert make_toc(text) == "- [One](#one)\n  - [One point one](#one-point-one)\n- [Two](#two)\n"


@pytest.mark.requirement("R5")
def test_text_is_inserted_verbatim_and_links_are_replaced():
    text = "# The `mdtoc` *tool*\n## Using [mdtoc](https://example.org) & friends\n"
    assert make_toc(text) == (
        "- [The `mdtoc` *tool*](#the-mdtoc-tool)\n"
        "  - [Using mdtoc & friends](#using-mdtoc--friends)\n"
    )


@pytest.mark.requirement("R5")
@pytest.mark.parametrize("text", ["", "no headings here\n", "```\n# code\n```\n"])
def test_empty_toc(text):
    assert make_toc(text) == ""


@pytest.mark.requirement("R5")
def test_cli_toc_prints_toc_and_leaves_file(cli, write, read):
    path = write(GUIDE)
    result = cli("toc", path)
    assert (result.code, result.out, result.err) == (0, GUIDE_TOC, "")
    assert read(path) == GUIDE


@pytest.mark.requirement("R5")
def test_cli_toc_without_headings_prints_nothing(cli, write):
    result = cli("toc", write("just text\n"))
    assert (result.code, result.out, result.err) == (0, "", "")


# --- R6: TOC options ------------------------------------------------------------------

LEVELS = "# T\n## A\n### B\n#### C\n"


@pytest.mark.requirement("R6")
def test_level_range_and_indent_spec_example():
    assert make_toc(LEVELS, min_level=2, max_level=3, indent=4) == "- [A](#a)\n    - [B](#b)\n"


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"max_level": 1}, "- [T](#t)\n"),
        ({"min_level": 3, "max_level": 3}, "- [B](#b)\n"),
        ({"min_level": 4}, "- [C](#c)\n"),
        ({"indent": 1}, "- [T](#t)\n - [A](#a)\n  - [B](#b)\n   - [C](#c)\n"),
        ({"min_level": 5}, ""),
    ],
)
def test_level_filter_and_indent(options, expected):
    assert make_toc(LEVELS, **options) == expected


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_level": 0}, "min_level must be between 1 and 6, got 0"),
        ({"max_level": 7}, "max_level must be between 1 and 6, got 7"),
        ({"min_level": 4, "max_level": 2}, "min_level 4 is greater than max_level 2"),
        ({"indent": 0}, "indent must be at least 1, got 0"),
    ],
)
def test_invalid_options_raise_value_error(options, message):
    with pytest.raises(ValueError) as info:
        make_toc(LEVELS, **options)
    assert message in str(info.value)


@pytest.mark.requirement("R6")
def test_cli_level_and_indent_options(cli, write):
    path = write(LEVELS)
    result = cli("toc", "--min-level", "2", "--max-level=3", "--indent", "4", path)
    assert (result.code, result.out) == (0, "- [A](#a)\n    - [B](#b)\n")


@pytest.mark.requirement("R6")
def test_cli_options_after_file(cli, write):
    result = cli("toc", write(LEVELS), "--max-level", "2")
    assert (result.code, result.out) == (0, "- [T](#t)\n  - [A](#a)\n")


@pytest.mark.requirement("R6")
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--min-level", "0"], "min_level must be between 1 and 6, got 0"),
        (["--min-level", "3", "--max-level", "2"], "min_level 3 is greater than max_level 2"),
        (["--indent", "0"], "indent must be at least 1, got 0"),
        (["--indent", "x"], "mdtoc: error: "),
    ],
)
def test_cli_invalid_option_values(cli, write, args, message):
    result = cli("toc", *args, write(LEVELS))
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("mdtoc: error: ")
    assert result.err.endswith("\n") and result.err.count("\n") == 1
    assert message in result.err


# --- R7: updating the TOC between markers ----------------------------------------------


@pytest.mark.requirement("R7")
def test_update_toc_spec_example():
    text = "# A\n<!-- toc -->\nstale\n<!-- tocstop -->\n## B\n"
    expected = "# A\n<!-- toc -->\n\n- [A](#a)\n  - [B](#b)\n\n<!-- tocstop -->\n## B\n"
    assert update_toc(text) == expected


@pytest.mark.requirement("R7")
def test_update_toc_is_idempotent():
    text = "# Doc\n\nIntro.\n\n<!-- toc -->\n<!-- tocstop -->\n\n## One\n### Two\n"
    once = update_toc(text)
    assert update_toc(once) == once
    assert once == (
        "# Doc\n\nIntro.\n\n<!-- toc -->\n\n- [Doc](#doc)\n  - [One](#one)\n"
        "    - [Two](#two)\n\n<!-- tocstop -->\n\n## One\n### Two\n"
    )


@pytest.mark.requirement("R7")
def test_update_toc_with_options_and_indented_markers():
    text = "# T\n  <!-- toc -->  \nold\nold\n<!--   tocstop -->\n<!-- tocstop -->\n## A\n"
    # the first stop-like line is not a marker (inner spaces differ), so it is replaced
    assert (
        update_toc(text, min_level=2)
        == "# T\n  <!-- toc -->  \n\n- [A](#a)\n\n<!-- tocstop -->\n## A\n"
    )


@pytest.mark.requirement("R7")
def test_update_toc_empty_toc_makes_markers_adjacent():
    text = "intro\n<!-- toc -->\n\n- [Old](#old)\n\n<!-- tocstop -->\nend"
    assert update_toc(text) == "intro\n<!-- toc -->\n<!-- tocstop -->\nend"


@pytest.mark.requirement("R7")
def test_update_toc_ignores_markers_in_code_blocks():
    text = "# A\n```\n<!-- toc -->\n```\n<!-- toc -->\n<!-- tocstop -->\n"
    assert (
        update_toc(text)
        == "# A\n```\n<!-- toc -->\n```\n<!-- toc -->\n\n- [A](#a)\n\n<!-- tocstop -->\n"
    )


@pytest.mark.requirement("R7")
def test_cli_inplace_rewrites_file(cli, write, read):
    path = write("# A\n<!-- toc -->\n<!-- tocstop -->\n## B\n")
    result = cli("toc", "--inplace", path)
    assert (result.code, result.out, result.err) == (0, "", "")
    assert read(path) == "# A\n<!-- toc -->\n\n- [A](#a)\n  - [B](#b)\n\n<!-- tocstop -->\n## B\n"
    assert cli("toc", "--inplace", path).code == 0
    assert read(path) == "# A\n<!-- toc -->\n\n- [A](#a)\n  - [B](#b)\n\n<!-- tocstop -->\n## B\n"


@pytest.mark.requirement("R7")
def test_cli_inplace_with_options(cli, write, read):
    path = write("# A\n<!-- toc -->\n<!-- tocstop -->\n## B\n### C\n")
    assert cli("toc", "--inplace", "--min-level", "2", "--indent", "3", path).code == 0
    assert (
        read(path)
        == "# A\n<!-- toc -->\n\n- [B](#b)\n   - [C](#c)\n\n<!-- tocstop -->\n## B\n### C\n"
    )


# --- R8: marker errors --------------------------------------------------------------


@pytest.mark.requirement("R8")
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# A\n", "missing <!-- toc --> marker"),
        ("# A\n<!-- tocstop -->\n", "missing <!-- toc --> marker"),
        ("<!-- toc -->\n<!-- toc -->\n<!-- tocstop -->\n", "duplicate <!-- toc --> marker"),
        ("# A\n<!-- toc -->\n", "missing <!-- tocstop --> marker"),
        ("<!-- toc -->\n<!-- tocstop -->\n<!-- tocstop -->\n", "duplicate <!-- tocstop --> marker"),
        (
            "<!-- tocstop -->\n# A\n<!-- toc -->\n",
            "<!-- tocstop --> marker before <!-- toc --> marker",
        ),
        ("<!-- toc -->\n```\n<!-- tocstop -->\n```\n", "missing <!-- tocstop --> marker"),
    ],
)
def test_marker_errors(text, message):
    with pytest.raises(MarkerError) as info:
        update_toc(text)
    assert message in str(info.value)


@pytest.mark.requirement("R8")
def test_marker_error_is_value_error_and_make_toc_ignores_markers():
    assert issubclass(MarkerError, ValueError)
    assert make_toc("# A\n<!-- toc -->\n<!-- toc -->\n") == "- [A](#a)\n"


@pytest.mark.requirement("R8")
@pytest.mark.parametrize("mode", ["--inplace", "--check"])
def test_cli_marker_error(cli, write, read, mode):
    path = write("# A\n<!-- toc -->\n")
    result = cli("toc", mode, path)
    assert result.code == 2
    assert result.out == ""
    assert result.err == f"mdtoc: error: {path}: missing <!-- tocstop --> marker\n"
    assert read(path) == "# A\n<!-- toc -->\n"


# --- R9: check mode (toc) ------------------------------------------------------------------


@pytest.mark.requirement("R9")
def test_toc_check_reports_stale_file_without_writing(cli, write, read):
    text = "# A\n<!-- toc -->\n<!-- tocstop -->\n"
    path = write(text)
    result = cli("toc", "--check", path)
    assert (result.code, result.out, result.err) == (1, f"{path}: would change\n", "")
    assert read(path) == text


@pytest.mark.requirement("R9")
def test_toc_check_up_to_date_file(cli, write):
    path = write("# A\n<!-- toc -->\n\n- [A](#a)\n\n<!-- tocstop -->\n")
    result = cli("toc", "--check", path)
    assert (result.code, result.out, result.err) == (0, "", "")


@pytest.mark.requirement("R9")
def test_toc_check_respects_options(cli, write):
    path = write("# A\n<!-- toc -->\n\n- [A](#a)\n\n<!-- tocstop -->\n## B\n")
    assert cli("toc", "--check", "--max-level", "1", path).code == 0
    assert cli("toc", "--check", path).code == 1


@pytest.mark.requirement("R9")
def test_toc_check_compares_after_newline_translation(cli, write, read):
    text = "# A\r\n<!-- toc -->\r\n\r\n- [A](#a)\r\n\r\n<!-- tocstop -->\r\n"
    path = write(text)
    result = cli("toc", "--check", path)
    assert (result.code, result.out) == (0, "")
    assert read(path) == text


@pytest.mark.requirement("R9")
def test_inplace_and_check_are_exclusive(cli, write, read):
    text = "# A\n<!-- toc -->\n<!-- tocstop -->\n"
    path = write(text)
    result = cli("toc", "--inplace", "--check", path)
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("mdtoc: error: ")
    assert read(path) == text
