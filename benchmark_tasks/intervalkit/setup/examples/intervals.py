"""Example usage: intervals and interval sets."""

from intervalkit import Interval, IntervalSet

a = Interval.closed(0, 5)
b = Interval.open(3, 8)
assert a.overlaps(b)
assert 5 in a and 8 not in b
joined = a.union(b)
assert isinstance(joined, IntervalSet) and joined.contains(7)
assert Interval.parse("[1, 2)") == Interval.closedopen(1, 2)
assert not a.complement().contains(3)
print("ok")
