"""Fixtures that build intervals from compact text without relying on Interval.parse."""

import pytest


def _number(token):
    token = token.strip()
    try:
        return int(token)
    except ValueError:
        return float(token)


@pytest.fixture
def iv():
    """``iv("[1, 5)")`` -> Interval built with the general constructor."""
    from intervalkit import Interval

    def build(text):
        text = text.strip()
        if text == "∅":
            return Interval.empty()
        lower_text, upper_text = text[1:-1].split(",")
        lower = None if lower_text.strip() == "-inf" else _number(lower_text)
        upper = None if upper_text.strip() == "+inf" else _number(upper_text)
        return Interval(lower, upper, text[0] + text[-1])

    return build


@pytest.fixture
def iset(iv):
    """``iset("[1, 2]", "(3, 4)")`` -> IntervalSet of those intervals."""
    from intervalkit import IntervalSet

    def build(*texts):
        return IntervalSet([iv(text) for text in texts])

    return build
