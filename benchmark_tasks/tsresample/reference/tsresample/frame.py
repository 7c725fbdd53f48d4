"""The Frame data model: timestamps plus named numeric columns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

Value = float | int | None
"""A cell: a number, or None for a missing value."""


@dataclass
class Frame:
    """A time series table.

    ``timestamps`` are timezone-aware and strictly increasing; ``columns`` maps each column
    name (in column order) to a list of values with one entry per timestamp.
    """

    timestamps: list[datetime]
    columns: dict[str, list[Value]]

    def __post_init__(self) -> None:
        for moment in self.timestamps:
            if moment.utcoffset() is None:
                raise ValueError(f"timestamp {moment!r} is naive")
        for earlier, later in zip(self.timestamps, self.timestamps[1:]):
            if later <= earlier:
                raise ValueError("timestamps must be strictly increasing")
        for name, values in self.columns.items():
            if len(values) != len(self.timestamps):
                raise ValueError(
                    f"column {name!r} has {len(values)} values, "
                    f"expected {len(self.timestamps)}"
                )

    def __len__(self) -> int:
        """Number of rows."""
        return len(self.timestamps)

    @property
    def column_names(self) -> list[str]:
        """The value column names in column order."""
        return list(self.columns)
