"""Accounting (cost, CO2) and the record/replay tape, with hand-computed numbers."""

from __future__ import annotations

import re
import tomllib

import pytest

from pytest_e2ebench.llm import Completion, Pricing, co2_grams
from pytest_e2ebench.llm.accounting import (
    PRICES_FILE,
    PriceTable,
    model_names,
    shipped_prices,
)
from pytest_e2ebench.llm.cache import CachedLLM, ReplayMiss


def test_co2_hand_computed():
    # 2 * 7e9 params * 1000 tokens = 1.4e13 FLOP; at 989e12 * 0.5 FLOP/s that is 0.028311 s;
    # at 700 W and PUE 1.2: 0.028311 * 700 / 3.6e6 * 1.2 = 6.6060e-6 kWh; * 475 g/kWh:
    assert co2_grams(1000, 7e9) == pytest.approx(3.1378e-3, rel=1e-4)
    assert co2_grams(1000, 7e9, {"intensity": 0.0}) == 0.0
    assert co2_grams(1000, None) is None


def test_pricing_from_ini_lines():
    pricing = Pricing.parse(["gpt-x 2.5 10", "local 0 0"], ["local 8e9"], ["pue = 1.1"])
    assert pricing.cost("gpt-x", 1_000_000, 100_000) == pytest.approx(2.5 + 1.0)
    assert pricing.cost("unknown", 10, 10) is None
    assert pricing.co2("gpt-x", 100) is None
    assert pricing.co2("local", 100) == pytest.approx(co2_grams(100, 8e9, {"pue": 1.1}))


@pytest.mark.parametrize(
    "called, names",
    [
        ("claude-sonnet-4-5-20250929", ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]),
        ("anthropic/claude-opus-4-1", ["anthropic/claude-opus-4-1", "claude-opus-4-1"]),
        ("claude-sonnet-4-5@20250929", ["claude-sonnet-4-5@20250929", "claude-sonnet-4-5"]),
        ("gpt-4o-mini-2024-07-18", ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"]),
        ("claude-3-5-haiku-latest", ["claude-3-5-haiku-latest", "claude-3-5-haiku"]),
        ("models/gemini-2.5-pro", ["models/gemini-2.5-pro", "gemini-2.5-pro"]),
        ("gpt-5.1", ["gpt-5.1"]),
        ("o3", ["o3"]),
    ],
)
def test_the_names_a_model_is_priced_under(called, names):
    assert model_names(called) == names


def test_the_user_wins_then_the_shipped_table_then_none():
    table = PriceTable("2026-01-02", {"m": (1.0, 2.0, 0.1, 1.25), "m-2024-05-13": (9, 9, 9, 9)})
    pricing = Pricing.parse(["u-model 3 4", "m-20250101 5 6 0.5 7"], [], [], table)
    assert pricing.source("m-20251231") == "shipped 2026-01-02"  # the dated name's family
    assert pricing.source("m-20250101") == "user"  # the user's line for that very name
    assert pricing.source("u-model-20250101") == "user"  # the user's family line, dated
    assert pricing.source("other") is None and pricing.cost("other", 1, 1) is None
    # an exact shipped name beats the family it would fall back to
    assert pricing.price("m-2024-05-13").prompt == 9
    # 100 in (40 read from the cache, 20 written to it), 10 out
    assert pricing.cost("m", 100, 10, 40, 20) == pytest.approx((40 + 4 + 25 + 20) / 1e6)
    # a user's line without cache prices: both are its prompt price
    assert pricing.cost("u-model", 100, 10, 40, 20) == pytest.approx((300 + 40) / 1e6)
    assert pricing.worst("m", 100, 10) == pytest.approx((125 + 20) / 1e6)


def test_the_shipped_table_is_dated_and_sourced():
    """Every model of prices.toml has the four prices and a provider's page, the date is a
    date, and the main providers' current models are in it."""
    data = tomllib.loads(PRICES_FILE.read_text())
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", data["date"])
    for name, row in data["models"].items():
        assert set(row) == {"prompt", "completion", "cache_read", "cache_write", "source"}, name
        assert row["source"].startswith("https://"), name
        assert 0 <= row["cache_read"] <= row["prompt"] <= row["cache_write"], name
    table = shipped_prices()
    for name in ("claude-sonnet-4-5", "claude-haiku-4-5", "gpt-4.1", "gpt-5", "gemini-2.5-pro"):
        assert name in table.models


@pytest.mark.parametrize(
    "prices, params, co2, message",
    [
        (["gpt-x 2.5"], [], [], "e2ebench_prices: 'gpt-x 2.5': write MODEL PROMPT_USD_PER_MTOK"),
        ([], ["local"], [], "e2ebench_model_params: 'local': write MODEL ACTIVE_PARAMS"),
        ([], [], ["watts = 3"], "e2ebench_co2: 'watts = 3': write KEY = VALUE with KEY one of"),
    ],
)
def test_bad_ini_lines_say_the_format(prices, params, co2, message):
    with pytest.raises(ValueError, match=message):
        Pricing.parse(prices, params, co2)


class Counter:
    """A deterministic LLM for the tape's own tests: answers 'answer <n>'."""

    model = "counter"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, *, tools=None, scope=""):
        self.calls += 1
        return Completion(f"answer {self.calls}", (), "stop", 3, 2, cost_usd=0.5)


def test_record_then_replay_per_scope_and_position(tmp_path):
    inner = Counter()
    rec = CachedLLM(inner, tmp_path, "record")
    msgs = [{"role": "user", "content": "hi"}]
    assert rec.complete(msgs, scope="a/x").content == "answer 1"
    assert rec.complete(msgs, scope="a/x").content == "answer 2"
    assert rec.complete(msgs, scope="b/x").content == "answer 3"
    rep = CachedLLM(Counter(), tmp_path, "replay")
    first = rep.complete(msgs, scope="a/x")
    assert (first.content, first.cached, first.cost_usd) == ("answer 1", True, 0.5)
    assert rep.complete([{"role": "user", "content": "changed"}], scope="a/x").content == "answer 2"
    assert rep.drift == 1
    with pytest.raises(ReplayMiss, match="no recorded answer #3 for 'a/x'"):
        rep.complete(msgs, scope="a/x")


def test_off_mode_always_calls(tmp_path):
    inner = Counter()
    off = CachedLLM(inner, tmp_path, "off")
    off.complete([], scope="s")
    off.complete([], scope="s")
    assert inner.calls == 2
    assert not any(tmp_path.iterdir())
