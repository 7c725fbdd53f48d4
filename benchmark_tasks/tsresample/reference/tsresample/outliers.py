"""Outlier flagging with the z-score and interquartile-range rules."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .errors import UsageError
from .frame import Frame, Value

Predicate = Callable[[float], bool]


def _zscore_rule(values: Sequence[float], threshold: float) -> Predicate:
    """Flag values more than ``threshold`` population standard deviations from the mean."""
    if not values:
        return lambda value: False
    mean = math.fsum(values) / len(values)
    deviation = math.sqrt(math.fsum((value - mean) ** 2 for value in values) / len(values))
    if deviation == 0:
        return lambda value: False
    return lambda value: abs(value - mean) / deviation > threshold


def quantile(ordered: Sequence[float], fraction: float) -> float:
    """Linearly interpolated quantile of sorted values (position ``(n - 1) * fraction``)."""
    position = (len(ordered) - 1) * fraction
    lower = math.floor(position)
    if lower + 1 >= len(ordered):
        return ordered[lower]
    return ordered[lower] + (position - lower) * (ordered[lower + 1] - ordered[lower])


def _iqr_rule(values: Sequence[float], threshold: float) -> Predicate:
    """Flag values outside ``[Q1 - threshold*IQR, Q3 + threshold*IQR]``."""
    if not values:
        return lambda value: False
    ordered = sorted(values)
    first, third = quantile(ordered, 0.25), quantile(ordered, 0.75)
    spread = third - first
    low, high = first - threshold * spread, third + threshold * spread
    return lambda value: value < low or value > high


RULES: dict[str, tuple[Callable[[Sequence[float], float], Predicate], float]] = {
    "zscore": (_zscore_rule, 3.0),
    "iqr": (_iqr_rule, 1.5),
}


def flag_outliers(frame: Frame, method: str = "zscore", *, threshold: float | None = None) -> Frame:
    """Return a frame where each column ``c`` is followed by a flag column ``c_outlier``.

    Flags are 1 for an outlier, 0 for a regular value and None where the value is missing.
    Statistics are computed per column over its non-missing values.
    """
    if method not in RULES:
        raise UsageError(f"unknown outlier method: {method!r}")
    rule, default = RULES[method]
    if threshold is None:
        threshold = default
    if not threshold > 0:
        raise UsageError(f"threshold must be positive, got {threshold}")
    columns: dict[str, list[Value]] = {}
    for name, values in frame.columns.items():
        is_outlier = rule([value for value in values if value is not None], threshold)
        flag_name = f"{name}_outlier"
        if flag_name in frame.columns or flag_name in columns:
            raise UsageError(f"flag column {flag_name!r} clashes with an existing column")
        columns[name] = list(values)
        columns[flag_name] = [None if value is None else int(is_outlier(value)) for value in values]
    return Frame(list(frame.timestamps), columns)
