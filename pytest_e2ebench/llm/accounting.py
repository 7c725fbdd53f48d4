"""Cost and CO2 of LLM calls.

**Cost** comes from a price table in US dollars per million tokens (prompt, completion). The
built-in table is empty on purpose: prices change and differ by provider, so users state them
in ini (``e2ebench_prices``), one line per model: ``MODEL PROMPT_USD_PER_MTOK
COMPLETION_USD_PER_MTOK [CACHED_PROMPT_USD_PER_MTOK]``; prompt tokens the server reports as
cached cost the third price (the prompt price when there is none). A model without a price has
``cost_usd = null``. Cached prompt tokens need no forward pass and count nowhere in CO2.

**CO2** follows the FLOP-based estimate E2EDev uses (§B.2): a forward pass costs about
2 · active parameters FLOPs per token, the GPU delivers ``peak_flops · efficiency`` FLOP/s at
``tdp_w`` watts, the data centre multiplies by its PUE, and the grid emits ``intensity`` grams
per kWh::

    energy_kWh = 2 · params · tokens / (peak_flops · efficiency) · tdp_w / 3.6e6 · pue
    co2_g      = energy_kWh · intensity

The active parameter count of hosted models is not public, so it is an assumption the user
states per model (``e2ebench_model_params``); without it ``co2_g`` is null. Hardware defaults
(an NVIDIA H100 SXM: 989 TFLOP/s dense BF16 at 700 W; 50 % efficiency; PUE 1.2; 475 g/kWh,
the IEA world average) are configurable with ``e2ebench_co2``.
"""

from __future__ import annotations

import dataclasses

DEFAULT_HARDWARE = {
    "peak_flops": 989e12,  # H100 SXM dense BF16, NVIDIA datasheet
    "tdp_w": 700.0,
    "efficiency": 0.5,
    "pue": 1.2,
    "intensity": 475.0,  # g CO2 per kWh, IEA world average
}


def co2_grams(
    tokens: int, active_params: float | None, hardware: dict | None = None
) -> float | None:
    """Grams of CO2 for processing ``tokens`` tokens, or None when params are unknown."""
    if active_params is None:
        return None
    hw = {**DEFAULT_HARDWARE, **(hardware or {})}
    seconds = 2.0 * active_params * tokens / (hw["peak_flops"] * hw["efficiency"])
    kwh = seconds * hw["tdp_w"] / 3.6e6 * hw["pue"]
    return kwh * hw["intensity"]


@dataclasses.dataclass(frozen=True)
class Pricing:
    """Prices and parameter counts per model, plus hardware assumptions for CO2."""

    prices: dict[str, tuple[float, ...]] = dataclasses.field(default_factory=dict)
    params: dict[str, float] = dataclasses.field(default_factory=dict)
    hardware: dict[str, float] = dataclasses.field(default_factory=dict)

    def cost(
        self, model: str, prompt_tokens: int, completion_tokens: int, cached_tokens: int = 0
    ) -> float | None:
        """US dollars for one call, or None when the model has no price. ``cached_tokens`` of
        the prompt tokens cost the cached price (the prompt price when none is stated)."""
        price = self.prices.get(model)
        if price is None:
            return None
        cached_price = price[2] if len(price) > 2 else price[0]
        fresh = (prompt_tokens - cached_tokens) * price[0]
        return (fresh + cached_tokens * cached_price + completion_tokens * price[1]) / 1e6

    def co2(self, model: str, tokens: int) -> float | None:
        """Grams of CO2 for one call, or None when the model's size is unknown."""
        return co2_grams(tokens, self.params.get(model), self.hardware)

    @classmethod
    def parse(cls, price_lines: list[str], param_lines: list[str], co2_lines: list[str]) -> Pricing:
        """Read the ini lines; ValueError names the bad line."""
        prices: dict[str, tuple[float, ...]] = {}
        for line in price_lines:
            parts = line.split()
            if len(parts) not in (3, 4):
                raise ValueError(
                    f"e2ebench_prices: {line!r}: write MODEL PROMPT_USD_PER_MTOK "
                    "COMPLETION_USD_PER_MTOK [CACHED_PROMPT_USD_PER_MTOK]"
                )
            prices[parts[0]] = tuple(float(p) for p in parts[1:])
        params: dict[str, float] = {}
        for line in param_lines:
            parts = line.split()
            if len(parts) != 2:
                raise ValueError(
                    f"e2ebench_model_params: {line!r}: write MODEL ACTIVE_PARAMS "
                    "(e.g. my-model 7e9)"
                )
            params[parts[0]] = float(parts[1])
        hardware: dict[str, float] = {}
        for line in co2_lines:
            key, _, value = line.partition("=")
            key = key.strip()
            if key not in DEFAULT_HARDWARE or not value.strip():
                raise ValueError(
                    f"e2ebench_co2: {line!r}: write KEY = VALUE with KEY one of "
                    f"{', '.join(DEFAULT_HARDWARE)}"
                )
            hardware[key] = float(value)
        return cls(prices, params, hardware)
