"""Importing RealDevBench's published format (a synthetic sample written here)."""

from __future__ import annotations

import json

from pytest_e2ebench.cli import main
from pytest_e2ebench.taskmodel.task import load_task

PROJECTS = [
    {
        "label": "Recipe Cards",
        "category": "Content Galleries",
        "scenario": "Display",
        "features": [
            "Recipe grid: show every recipe as a card with its photo and title.",
            "Search: filter the cards by a typed ingredient.",
        ],
        "feature_list": "- Recipe grid\n- Search",
        "prompt": "Build a recipe gallery from the attached photos.",
        "files": ["data/benchmark/Recipe Cards/soup.png", "missing.csv"],
    },
    {
        "label": "Budget Sheet",
        "category": "Finance",
        "scenario": "Analysis",
        "feature_list": "1. Monthly totals per category\n2) A bar chart of the totals\nnot a feature",
        "prompt": "Analyse the attached spending CSV.",
        "files": ["spend.csv"],
    },
    {"label": "", "prompt": "no name"},
]


def test_projects_become_app_tasks_with_features_and_materials(tmp_path, capsys):
    src = tmp_path / "RealDevBench"
    (src / "data" / "benchmark" / "Recipe Cards").mkdir(parents=True)
    (src / "data" / "benchmark" / "Recipe Cards" / "soup.png").write_bytes(b"\x89PNG fake")
    (src / "data" / "benchmark" / "Budget Sheet").mkdir(parents=True)
    (src / "data" / "benchmark" / "Budget Sheet" / "spend.csv").write_text("a,b\n1,2\n")
    lines = [json.dumps(p) for p in PROJECTS]
    (src / "test_dataset.jsonl").write_text("\n".join([*lines, lines[0]]) + "\n")
    out = tmp_path / "tasks"
    assert main(["import", "realdevbench", str(src), str(out), "--created", "2025-08-01"]) == 0
    printed = capsys.readouterr().out
    assert "recipe-cards: 2 features, 1 material(s), 1 file(s) not found" in printed
    assert "budget-sheet: 2 features, 1 material(s)" in printed
    assert "NOT IMPORTED test_dataset.jsonl:3: no 'label'" in printed

    recipes = load_task(out / "recipe-cards")
    assert recipes.kind == "app" and recipes.slots["app"].scenario == "display"
    assert recipes.reference_dir is None  # RealDevBench has no reference apps
    assert [r.title for r in recipes.requirements] == ["Recipe grid", "Search"]
    text = recipes.requirements_text
    assert text.startswith("# Recipe Cards\n\nBuild a recipe gallery")
    assert "### F2: Search\n\nSearch: filter the cards by a typed ingredient." in text
    assert "`index.html`" in text  # the launch contract the agent must follow
    assert (recipes.materials_dir / "soup.png").read_bytes() == b"\x89PNG fake"
    budget = load_task(out / "budget-sheet")
    assert [r.title for r in budget.requirements] == [
        "Monthly totals per category",
        "A bar chart of the totals",
    ]
    assert (budget.materials_dir / "spend.csv").is_file()
    report = json.loads((out / "import-report.json").read_text())
    assert [r.get("task") for r in report] == ["recipe-cards", "budget-sheet", None]
    assert report[0]["missing_files"] == ["missing.csv"]
