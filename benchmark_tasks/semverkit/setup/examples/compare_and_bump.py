"""Example usage: parse, compare, bump and coerce versions."""

from semverkit import Version, bump, coerce, compare, parse

v = parse("1.2.3-alpha.1+build.5")
assert (v.major, v.minor, v.patch) == (1, 2, 3)
assert v.is_prerelease
assert compare("1.0.0-alpha", "1.0.0") == -1
assert str(bump("1.2.3", "minor")) == "1.3.0"
assert str(coerce("v2.1")) == "2.1.0"
assert Version.parse("2.0.0") > Version.parse("1.9.9")
print("ok")
