"""Example usage: a mapping keyed by ranges."""

from intervalkit import Interval, IntervalDict

prices = IntervalDict()
prices[Interval.closedopen(0, 10)] = "small"
prices[Interval.closedopen(10, 100)] = "large"
assert prices[5] == "small" and prices[50] == "large"
assert prices.get(500, "none") == "none"
assert prices.domain().contains(99)
print("ok")
