"""Shared by the tests (moved from test_proxy.py)."""

from __future__ import annotations

import json
import urllib.request

from pytest_e2ebench.llm.accounting import Pricing

PRICING = Pricing(prices={"m": (1.0, 2.0, 0.5)})


def post(url: str, body: dict) -> tuple[int, bytes]:
    """POST JSON; the status and raw body (errors too)."""
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
