"""Example usage: npm-style ranges and selecting versions."""

from semverkit import max_satisfying, min_satisfying, satisfies, sort_versions

assert satisfies("1.4.0", "^1.2.3")
assert not satisfies("2.0.0", "^1.2.3")
assert satisfies("1.2.9", "~1.2")
assert not satisfies("1.3.0-beta", ">=1.2.0")
versions = ["1.0.0", "1.5.2", "2.0.0", "1.2.3"]
assert str(max_satisfying(versions, "1.x")) == "1.5.2"
assert str(min_satisfying(versions, ">=1.2.0 <2.0.0")) == "1.2.3"
assert [str(v) for v in sort_versions(versions)] == ["1.0.0", "1.2.3", "1.5.2", "2.0.0"]
print("ok")
