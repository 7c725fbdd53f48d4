"""ATX headings, fenced code blocks, slugs and duplicate slugs (R1-R4)."""

import pytest

from mdtoc import Heading, Slugger, headings, make_toc, slugify

# --- R1: ATX headings --------------------------------------------------------------


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    ("line", "level", "text"),
    [
        ("# Title", 1, "Title"),
        ("###### Six", 6, "Six"),
        ("   ## Indented", 2, "Indented"),
        ("## Closed ##", 2, "Closed"),
        ("## C# Tips", 2, "C# Tips"),
        ("# Ends with#", 1, "Ends with#"),
        ("#\tTabbed", 1, "Tabbed"),
        ("###   Spaced out   ", 3, "Spaced out"),
        ("## Closed with many #########  ", 2, "Closed with many"),
        ("## See [the docs](docs.md) now", 2, "See the docs now"),
        ("# Logo ![alt text](logo.png)", 1, "Logo alt text"),
    ],
)
def test_heading_level_and_text(line, level, text):
    found = headings(line)
    assert len(found) == 1
    assert (found[0].level, found[0].text, found[0].line) == (level, text, 1)


@pytest.mark.requirement("R1")
@pytest.mark.parametrize(
    "line",
    [
        "#NoSpace",
        "####### Seven",
        "    # four spaces",
        "#",
        "## ##",
        "\\# escaped",
        "text # not at start",
        "",
    ],
)
def test_not_a_heading(line):
    assert headings(line + "\n") == []


@pytest.mark.requirement("R1")
def test_headings_are_frozen_dataclasses_with_line_numbers():
    text = "Intro text\n\n# First\npara\n## Second\n"
    assert headings(text) == [
        Heading(1, "First", "first", 3),
        Heading(2, "Second", "second", 5),
    ]
    with pytest.raises(AttributeError):
        headings(text)[0].level = 3


@pytest.mark.requirement("R1")
def test_document_without_trailing_newline_and_empty_document():
    assert headings("para\n### Last") == [Heading(3, "Last", "last", 2)]
    assert headings("") == []


# --- R2: headings in fenced code blocks -------------------------------------------------


@pytest.mark.requirement("R2")
def test_headings_inside_backtick_fence_are_ignored():
    text = "# Real\n```bash\n# comment\n```\n## Also real\n"
    assert [(h.text, h.line) for h in headings(text)] == [("Real", 1), ("Also real", 5)]


@pytest.mark.requirement("R2")
def test_tilde_fence_and_indented_fence():
    text = "~~~\n# hidden\n~~~\n  ```\n# hidden too\n  ```\n# Visible\n"
    assert [h.text for h in headings(text)] == ["Visible"]


@pytest.mark.requirement("R2")
@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("````\n# a\n```\n# b\n````\n# c\n", ["c"]),
        ("~~~\n# a\n```\n# b\n~~~\n# c\n", ["c"]),
        ("```\n# a\n~~~~\n# b\n```   \n# c\n", ["c"]),
        ("# top\n```python\n# a\n# b\n", ["top"]),
        ("``` `inline` ```\n# c\n", ["c"]),
        ("```\n# a\n``` text\n# b\n```\n# c\n", ["c"]),
    ],
)
def test_fence_closing_rules(text, visible):
    assert [h.text for h in headings(text)] == visible


@pytest.mark.requirement("R2")
def test_two_backticks_are_not_a_fence():
    text = "``\n# Heading\n``\n"
    assert [h.text for h in headings(text)] == ["Heading"]


# --- R3: slug algorithm --------------------------------------------------------------


@pytest.mark.requirement("R3")
@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Hello, World!", "hello-world"),
        ("API v2.0", "api-v20"),
        ("C++ & Python", "c--python"),
        ("snake_case and kebab-case", "snake_case-and-kebab-case"),
        ("`code` span", "code-span"),
        ("What's New?", "whats-new"),
        ("\u00dcber Caf\u00e9", "\u00fcber-caf\u00e9"),
        ("100% Done", "100-done"),
        ("!!!", ""),
        ("a  b", "a--b"),
        (" lead-and-trail- ", "-lead-and-trail--"),
        ("Tab\there", "tabhere"),
    ],
)
def test_slugify(text, slug):
    assert slugify(text) == slug


@pytest.mark.requirement("R3")
def test_heading_slug_uses_text_without_link_destination():
    (heading,) = headings("## Read [the FAQ](docs/faq.md#top) first\n")
    assert heading.slug == "read-the-faq-first"


@pytest.mark.requirement("R3")
def test_slugify_does_not_deduplicate():
    assert slugify("Same") == slugify("Same") == "same"


# --- R4: duplicate slugs ------------------------------------------------------------


@pytest.mark.requirement("R4")
def test_slugger_spec_example():
    slugger = Slugger()
    assert [slugger.slug(t) for t in ["A", "A", "A-1", "A"]] == ["a", "a-1", "a-1-1", "a-2"]


@pytest.mark.requirement("R4")
def test_slugger_instances_are_independent():
    first, second = Slugger(), Slugger()
    assert first.slug("Intro") == "intro"
    assert first.slug("Intro") == "intro-1"
    assert second.slug("Intro") == "intro"


@pytest.mark.requirement("R4")
def test_slugger_counts_texts_with_the_same_slug():
    slugger = Slugger()
    assert [slugger.slug(t) for t in ["FAQ", "faq!", "F.A.Q."]] == ["faq", "faq-1", "faq-2"]


@pytest.mark.requirement("R4")
def test_empty_slug_duplicates():
    slugger = Slugger()
    assert [slugger.slug(t) for t in ["???", "!!!"]] == ["", "-1"]


@pytest.mark.requirement("R4")
def test_headings_deduplicate_across_levels():
    text = "# Notes\n## Notes\n### Notes\n## Notes-1\n"
    assert [h.slug for h in headings(text)] == ["notes", "notes-1", "notes-2", "notes-1-1"]


@pytest.mark.requirement("R4")
def test_toc_uses_document_wide_slugs_when_filtering_levels():
    text = "# Notes\n## Notes\n### Notes\n"
    assert make_toc(text, min_level=2) == "- [Notes](#notes-1)\n  - [Notes](#notes-2)\n"


@pytest.mark.requirement("R4")
def test_headings_in_code_blocks_do_not_take_slugs():
    text = "# Setup\n```\n# Setup\n```\n# Setup\n"
    assert [h.slug for h in headings(text)] == ["setup", "setup-1"]
