"""Renumbering ordered lists and the renumber command (R14, R15, R9)."""

import pytest

from mdtoc import renumber

# --- R14: renumbering ordered lists -----------------------------------------------------


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1. a\n1. b\n1. c\n", "1. a\n2. b\n3. c\n"),
        ("3) x\n7) y\n", "3) x\n4) y\n"),
        ("9. a\n9. b\n", "9. a\n10. b\n"),
        ("0. zero\n0. one\n", "0. zero\n1. one\n"),
        ("01. a\n05. b\n", "1. a\n2. b\n"),
        ("1. a\n5. b", "1. a\n2. b"),
        ("1.\n1.\tTabbed\n", "1.\n2.\tTabbed\n"),
    ],
)
def test_renumber_basic(text, expected):
    assert renumber(text) == expected


@pytest.mark.requirement("R14")
@pytest.mark.parametrize(
    "text",
    [
        "1.5 is a number\n1.2 too\n",
        "1.a\n1.b\n",
        "1234567890. ten digits\n1. x\n",
        "- a\n- b\n",
        "",
        "plain text\n",
    ],
)
def test_non_items_unchanged(text):
    assert renumber(text) == text


@pytest.mark.requirement("R14")
def test_only_digits_change():
    text = "  8.   spaced   item  \n  8.   second\n     continuation\n"
    assert renumber(text) == "  8.   spaced   item  \n  9.   second\n     continuation\n"


@pytest.mark.requirement("R14")
def test_cli_renumber_prints_document(cli, write, read):
    text = "# Steps\n\n1. a\n1. b\nend"
    path = write(text)
    result = cli("renumber", path)
    assert (result.code, result.out, result.err) == (0, "# Steps\n\n1. a\n2. b\nend", "")
    assert read(path) == text


@pytest.mark.requirement("R14")
def test_cli_renumber_inplace(cli, write, read):
    path = write("1. a\n1. b\n")
    result = cli("renumber", "--inplace", path)
    assert (result.code, result.out, result.err) == (0, "", "")
    assert read(path) == "1. a\n2. b\n"


# --- R15: list boundaries and nesting ------------------------------------------------------


@pytest.mark.requirement("R15")
def test_boundaries_spec_example():
    text = "1. a\n   5. x\n   5. y\n1. b\n\ntext\n4. c\n4. d\n"
    assert renumber(text) == "1. a\n   5. x\n   6. y\n2. b\n\ntext\n4. c\n5. d\n"


@pytest.mark.requirement("R15")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # blank lines and deeper-indented paragraphs do not end a list
        ("1. a\n\n   more\n\n1. b\n", "1. a\n\n   more\n\n2. b\n"),
        # a paragraph at the item indentation ends the list
        ("1. a\nlazy\n1. b\n", "1. a\nlazy\n1. b\n"),
        # a bullet item at the same indentation ends the list
        ("1. a\n- b\n1. c\n1. d\n", "1. a\n- b\n1. c\n2. d\n"),
        # the other delimiter starts a new list
        ("1. a\n1) b\n1) c\n1. d\n", "1. a\n1) b\n2) c\n1. d\n"),
        # a heading ends the list
        ("2. a\n# H\n2. b\n2. c\n", "2. a\n# H\n2. b\n3. c\n"),
        # returning from a nested list continues the outer list
        (
            "1. a\n  1. x\n    1. deep\n    1. deep\n  1. y\n1. b\n",
            "1. a\n  1. x\n    1. deep\n    2. deep\n  2. y\n2. b\n",
        ),
        # a shallower non-item line ends the nested list but not the outer one
        ("1. a\n    1. x\n  para\n    1. y\n1. b\n", "1. a\n    1. x\n  para\n    1. y\n2. b\n"),
    ],
)
def test_list_boundaries(text, expected):
    assert renumber(text) == expected


@pytest.mark.requirement("R15")
def test_fenced_code_inside_list_item_is_skipped():
    text = "1. a\n   ```\n   1. code\n1. not an item here\n   ```\n1. b\n"
    assert renumber(text) == "1. a\n   ```\n   1. code\n1. not an item here\n   ```\n2. b\n"


@pytest.mark.requirement("R15")
def test_unindented_fence_ends_list():
    text = "1. a\n```\n1. code\n```\n1. b\n"
    assert renumber(text) == text


@pytest.mark.requirement("R15")
def test_tab_indentation_is_not_expanded():
    text = "1. a\n\t1. b\n1. c\n"
    assert renumber(text) == "1. a\n\t1. b\n1. c\n"


# --- R9: check mode (renumber) -------------------------------------------------------


@pytest.mark.requirement("R9")
def test_renumber_check_would_change(cli, write, read):
    path = write("1. a\n1. b\n")
    result = cli("renumber", "--check", path)
    assert (result.code, result.out, result.err) == (1, f"{path}: would change\n", "")
    assert read(path) == "1. a\n1. b\n"


@pytest.mark.requirement("R9")
def test_renumber_check_clean(cli, write):
    result = cli("renumber", "--check", write("1. a\n2. b\n\n- x\n"))
    assert (result.code, result.out, result.err) == (0, "", "")


@pytest.mark.requirement("R9")
def test_renumber_check_with_inplace_is_usage_error(cli, write, read):
    path = write("1. a\n1. b\n")
    result = cli("renumber", "--check", "--inplace", path)
    assert result.code == 2
    assert result.out == ""
    assert read(path) == "1. a\n1. b\n"
