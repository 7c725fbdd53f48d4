"""Scripted test cases, with their plans, for the bundled app tasks (benchmark_apps/).

What a case writer would answer for each app (``feature``, ``case``, ``expected``) and how the
scripted tester (:mod:`pytest_e2ebench.tools.testing.scripted_app`) carries each case out. The keys
are the first heading of each app's requirements.md.
"""

from __future__ import annotations


def case(feature: str, text: str, expected: str, steps=(), **checks) -> dict:
    return {"feature": feature, "case": text, "expected": expected, "steps": list(steps), **checks}


def clicks(*cells: int) -> list[tuple[str, str]]:
    return [("click", f"Cell {n} (") for n in cells]


def add(name: str, email: str) -> list[tuple]:
    return [("type", "Name", name), ("type", "E-mail", email), ("click", "Add contact")]


BUNDLED = {
    "# Tic-tac-toe": [
        case(
            "F1",
            "Click cell 1",
            "cell 1 shows X, status Next: O",
            clicks(1),
            expect=["Cell 1 (X)", "Next: O"],
        ),
        case(
            "F1",
            "Click cell 5 twice",
            "cell 5 keeps X, status Next: O",
            clicks(5, 5),
            expect=["Cell 5 (X)", "Next: O"],
        ),
        case(
            "F2",
            "Play X 1, O 4, X 2, O 5, X 3",
            "X wins, score X: 1",
            clicks(1, 4, 2, 5, 3),
            expect=["X wins", "X: 1 · O: 0"],
        ),
        case(
            "F3",
            "Play cells 1 2 3 5 4 6 8 7 9",
            "Draw, Draws: 1",
            clicks(1, 2, 3, 5, 4, 6, 8, 7, 9),
            expect=["Draw", "Draws: 1"],
        ),
        case(
            "F4",
            "Click cell 1 then New game",
            "empty board, Next: X",
            [*clicks(1), ("click", "New game")],
            expect=["Cell 1 (empty)", "Next: X"],
        ),
    ],
    "# Sales dashboard": [
        case(
            "F1",
            "Open the page and read the table",
            "ten rows, e.g. 2026-01-30 North Lamp 50.00",
            expect=["2026-01-05", "2026-01-30", "100.00", "50.00"],
        ),
        case("F2", "Read the total", "Total revenue: 1741.00", expect=["Total revenue: 1741.00"]),
        case(
            "F3",
            "Choose North in Region",
            "Total revenue: 603.00, best Chair (273.00)",
            [("select", "Region", "North")],
            expect=["Total revenue: 603.00", "Best product: Chair (273.00)"],
            absent=["2026-01-07"],
        ),
        case(
            "F4",
            "Read the best product",
            "Best product: Desk (720.00)",
            expect=["Best product: Desk (720.00)"],
        ),
        case(
            "F5",
            "Click Sort by revenue",
            "rows 360.00, 273.00, 250.00 first",
            [("click", "Sort by revenue")],
            order=["360.00", "273.00", "250.00", "180.00"],
        ),
    ],
    "# Address book": [
        case(
            "F1",
            "Add Ada Lovelace ada@example.org",
            "listed, 1 contact",
            add("Ada Lovelace", "ada@example.org"),
            expect=["Ada Lovelace <ada@example.org>", "1 contact"],
        ),
        case(
            "F2",
            "Add Bob with e-mail bob-at-example",
            "Enter a valid e-mail address",
            add("Bob", "bob-at-example"),
            expect=["Enter a valid e-mail address", "0 contacts"],
        ),
        case(
            "F2",
            "Click Add contact with empty fields",
            "Enter a name",
            [("click", "Add contact")],
            expect=["Enter a name"],
        ),
        case(
            "F3",
            "Add Ada then delete her",
            "0 contacts",
            [*add("Ada Lovelace", "ada@example.org"), ("click", "Delete Ada Lovelace")],
            expect=["0 contacts"],
            absent=["<ada@example.org>"],
        ),
        case(
            "F4",
            "Add Ada and Bob, search example.com",
            "only Bob shown, 2 contacts",
            [
                *add("Ada Lovelace", "ada@example.org"),
                *add("Bob", "bob@example.com"),
                ("type", "Search", "example.com"),
            ],
            expect=["Bob <bob@example.com>", "2 contacts"],
            absent=["<ada@example.org>"],
        ),
        case(
            "F5",
            "Add Ada, reload the page",
            "Ada still listed",
            [*add("Ada Lovelace", "ada@example.org"), ("navigate", "index.html")],
            expect=["Ada Lovelace <ada@example.org>"],
        ),
    ],
    "# Quote wall": [
        case(
            "F1",
            "Open the page",
            "six cards, Showing 6 of 6 quotes",
            expect=[
                "Showing 6 of 6 quotes",
                "Ada Lovelace",
                "Steve Jobs",
                "Try to be a rainbow in someone's cloud.",
            ],
        ),
        case(
            "F2",
            "Choose Science in Topic",
            "Curie and Lovelace only",
            [("select", "Topic", "Science")],
            expect=["Showing 2 of 6 quotes", "Marie Curie"],
            absent=["Steve Jobs"],
        ),
        case(
            "F3",
            "Type rainbow into Search",
            "Maya Angelou only",
            [("type", "Search", "rainbow")],
            expect=["Showing 1 of 6 quotes", "Maya Angelou"],
            absent=["Confucius"],
        ),
        case(
            "F4",
            "Like Confucius twice",
            "2 likes on Confucius",
            [("click", "Like Confucius"), ("click", "Like Confucius")],
            expect=["2 likes", "0 likes"],
        ),
    ],
}
