"""Subresource integrity as the browser checks it (probe/e2ebench_sri.py, issue 47): the
strongest algorithm listed decides, and only a pin npm's copy fails loses its attribute."""

from __future__ import annotations

import base64
import hashlib

from pytest_e2ebench.probe import e2ebench_sri as sri

DATA = b"window.lib = 1;\n"


def _pin(algorithm: str, data: bytes = DATA) -> str:
    return f"{algorithm}-{base64.b64encode(hashlib.new(algorithm, data).digest()).decode()}"


def test_the_strongest_algorithm_listed_decides():
    assert sri.matches(DATA, _pin("sha384"))
    assert not sri.matches(DATA, _pin("sha384", b"other"))
    # a matching sha256 beside a failing sha512: the browser checks sha512 only
    assert not sri.matches(DATA, f"{_pin('sha256')} {_pin('sha512', b'other')}")
    assert sri.matches(DATA, f"{_pin('sha512', b'other')} {_pin('sha512')}")
    assert sri.matches(DATA, "md5-abc") and sri.matches(DATA, "")  # nothing it checks


def test_only_a_vendored_file_failing_its_pin_loses_the_attribute():
    prefix = "/__e2ebench__/vendor/"
    served = {"lib@1.0.0/lib.js": DATA}.get
    good = f'<script src="{prefix}lib%401.0.0/lib.js" integrity="{_pin("sha384")}"></script>'
    bad = f"<script integrity='{_pin('sha384', b'cdn')}' src=\"{prefix}lib@1.0.0/lib.js\">"
    own = f'<script src="app.js" integrity="{_pin("sha384", b"x")}"></script>'
    page = "\n".join([good, bad, own])
    out = sri.unpin(page, prefix, served).splitlines()
    assert out[0] == good and out[2] == own  # a correct pin, and the app's own file's
    assert out[1] == f'<script src="{prefix}lib@1.0.0/lib.js">'
