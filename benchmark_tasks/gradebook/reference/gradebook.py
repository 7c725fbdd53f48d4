"""Read scores.xlsx, write report.xlsx: per student the number of scores and their average."""

import sys
from pathlib import Path

from openpyxl import Workbook, load_workbook

INPUT = Path("scores.xlsx")
OUTPUT = Path("report.xlsx")
HEADER = ("Student", "Subject", "Score")


def read_scores(path):
    """The (student, score) pairs of the sheet; ValueError naming what is wrong."""
    if not path.is_file():
        raise ValueError(f"Error: {path.name} not found")
    sheet = load_workbook(path, read_only=True).active
    rows = sheet.iter_rows(values_only=True)
    header = next(rows, ())
    if tuple(header[:3]) != HEADER:
        raise ValueError("Error: the header must be Student, Subject, Score")
    return [(row[0], float(row[2])) for row in rows if row and row[0] is not None]


def summarise(scores):
    """Student -> (count, average rounded to two decimals), students in alphabetical order."""
    grouped = {}
    for student, score in scores:
        grouped.setdefault(student, []).append(score)
    return {
        name: (len(values), round(sum(values) / len(values), 2))
        for name, values in sorted(grouped.items())
    }


def write_report(summary, path):
    """Write the summary as a sheet with the header Student, Count, Average."""
    book = Workbook()
    sheet = book.active
    sheet.append(["Student", "Count", "Average"])
    for name, (count, average) in summary.items():
        sheet.append([name, count, average])
    book.save(path)


def main():
    """Run the conversion; exit status 1 with the error message on bad input."""
    try:
        scores = read_scores(INPUT)
    except ValueError as exc:
        print(exc)
        return 1
    write_report(summarise(scores), OUTPUT)
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
