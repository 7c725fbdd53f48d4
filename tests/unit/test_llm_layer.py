"""Accounting (cost, CO2) and the record/replay tape, with hand-computed numbers."""

from __future__ import annotations

import pytest

from pytest_e2ebench.llm import Completion, Pricing, co2_grams
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
