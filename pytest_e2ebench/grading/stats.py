"""The statistics of the reports, in one place: mean ± std, bootstrap CIs, pass@k, sign test.

Everything here is deterministic: the bootstrap draws from a ``random.Random`` seeded with
:data:`SEED`, so the same inputs give the same interval in every session and on every machine.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterable, Sequence

SEED = 20240605  # any fixed number: CIs must not change between sessions on the same data
RESAMPLES = 2000  # percentile bootstrap; 2000 resamples keep the 2.5/97.5 % tails stable
LEVEL = 0.95
METHOD = {
    "std": "sample standard deviation (n - 1) over runs",
    "ci95": f"percentile bootstrap over runs, {RESAMPLES} resamples, seed {SEED}",
    "pass_at_k": "unbiased estimator 1 - C(n-c, k) / C(n, k) per requirement (Chen et al. 2021)",
    "best_of_n": "a requirement counts if any evaluated run implements it",
    "compare": "paired bootstrap CI of per-task deltas; exact two-sided sign test",
}


def clean(values: Iterable[float | None]) -> list[float]:
    """The values as floats, without None and NaN."""
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]


def mean_std(values: Iterable[float | None]) -> dict:
    """Mean and sample standard deviation (n − 1) of the non-null values.

    ``std`` is None with fewer than two values; both are None with none.
    """
    xs = clean(values)
    return {
        "mean": statistics.fmean(xs) if xs else None,
        "std": statistics.stdev(xs) if len(xs) > 1 else None,
        "n": len(xs),
    }


def bootstrap_ci(
    values: Sequence[float | None], level: float = LEVEL, resamples: int = RESAMPLES
) -> list[float] | None:
    """Percentile bootstrap interval ``[low, high]`` of the mean (None under two values).

    Identical values give a zero-width interval; the draws are seeded, so the interval of the
    same values is the same every time.
    """
    xs = clean(values)
    if len(xs) < 2:
        return None
    rng = random.Random(SEED)
    n = len(xs)
    means = sorted(statistics.fmean(rng.choices(xs, k=n)) for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[int(math.floor(tail * (resamples - 1)))]
    high = means[int(math.ceil((1 - tail) * (resamples - 1)))]
    return [low, high]


def describe(values: Iterable[float | None]) -> dict:
    """``mean``, ``std``, ``n`` and the bootstrap ``ci95`` of the values."""
    xs = clean(values)
    return {**mean_std(xs), "ci95": bootstrap_ci(xs)}


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k of a requirement implemented in ``c`` of ``n`` runs (k ≤ n).

    The chance that at least one of ``k`` runs drawn without replacement implements it:
    ``1 - C(n - c, k) / C(n, k)`` (Chen et al. 2021, "Evaluating Large Language Models
    Trained on Code", eq. 1).
    """
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 0 < k <= n and 0 <= c <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided sign test: p-value of ``wins`` against ``losses`` (ties left out).

    Under the null each untied pair is a fair coin: p = 2 · P(X ≤ min(wins, losses)) for
    X ~ Binomial(wins + losses, 1/2), at most 1.
    """
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)
