"""Cost and CO2 of LLM calls.

**Cost** comes from prices in US dollars per million tokens: prompt, completion, cache read
and cache write. The user states them in ini (``e2ebench_prices``), one line per model:
``MODEL PROMPT_USD_PER_MTOK COMPLETION_USD_PER_MTOK [CACHE_READ_USD_PER_MTOK
[CACHE_WRITE_USD_PER_MTOK]]`` (a price not given is the prompt price). A model the user gives no
price for is priced from the table this package ships (``prices.toml``: the providers' public
list prices on its ``date``, each with its source); a model in neither has ``cost_usd = null``.
Of a call's prompt tokens, those the server reports as read from its prompt cache cost the
cache-read price and those it wrote to the cache (Anthropic's ``cache_creation_input_tokens``)
the cache-write price; reasoning tokens are part of the completion tokens, at the completion
price (every provider here bills them as output), counted apart by the callers.
:meth:`Pricing.source` says which table priced a model: ``"user"`` or ``"shipped <date>"``.

Names (:func:`model_names`): a model is looked up under the name it was called by, then without
a provider prefix (up to the last ``/``) and a trailing date (``-20250929``, ``-2024-08-06``,
``@20250929``) or ``-latest``: the user's lines first under every form, then the shipped table.
Cached prompt tokens need no forward pass and count nowhere in CO2.

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
import functools
import re
import tomllib
from pathlib import Path

PRICES_FILE = Path(__file__).with_name("prices.toml")
USER = "user"
# a trailing release date or alias of a model name: -20250929, -2024-08-06, @20250929, -latest
_DATED = re.compile(r"(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")

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


def model_names(model: str) -> list[str]:
    """The names ``model`` is priced under, in order: as called, then without a provider
    prefix and a trailing date (``anthropic/claude-sonnet-4-5-20250929``: ``claude-sonnet-4-5``)."""
    bare = _DATED.sub("", model.rsplit("/", 1)[-1])
    return [model] if bare in ("", model) else [model, bare]


def sources_label(sources) -> str | None:
    """How a record names the price tables that priced a run's calls (each a
    :meth:`Pricing.source`, None for an unpriced call): ``"user"``, ``"shipped <date>"``, both
    joined with ", " when its calls were priced by each, None when none was priced."""
    return ", ".join(sorted({s for s in sources if s})) or None


@dataclasses.dataclass(frozen=True)
class Price:
    """US dollars per million tokens of one model, and the table they come from."""

    prompt: float
    completion: float
    cache_read: float
    cache_write: float
    source: str  # "user" or "shipped <date>"

    @classmethod
    def of(cls, values: tuple[float, ...], source: str) -> Price:
        """From (prompt, completion[, cache read[, cache write]]): a missing one is the prompt's."""
        rest = (*values[2:], values[0], values[0])
        return cls(values[0], values[1], rest[0], rest[1], source)


@dataclasses.dataclass(frozen=True)
class PriceTable:
    """The shipped list prices: the day they were read, and per model (prompt, completion,
    cache read, cache write)."""

    date: str
    models: dict[str, tuple[float, float, float, float]]

    @property
    def source(self) -> str:
        """How a record names this table."""
        return f"shipped {self.date}"


@functools.cache
def shipped_prices(path: Path = PRICES_FILE) -> PriceTable:
    """The table of :data:`PRICES_FILE` (the harness's own data, read once)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    keys = ("prompt", "completion", "cache_read", "cache_write")
    models = {name: tuple(float(row[k]) for k in keys) for name, row in data["models"].items()}
    return PriceTable(str(data["date"]), models)


@dataclasses.dataclass(frozen=True)
class Pricing:
    """Prices and parameter counts per model, plus hardware assumptions for CO2.

    ``prices`` are the user's (``e2ebench_prices``), ``table`` the shipped list prices used for
    a model the user gives none for (None: only the user's, as a test may want)."""

    prices: dict[str, tuple[float, ...]] = dataclasses.field(default_factory=dict)
    params: dict[str, float] = dataclasses.field(default_factory=dict)
    hardware: dict[str, float] = dataclasses.field(default_factory=dict)
    table: PriceTable | None = None

    def price(self, model: str) -> Price | None:
        """The price of ``model``: the user's under any of its names, else the shipped one."""
        names = model_names(model)
        for name in names:
            if name in self.prices:
                return Price.of(self.prices[name], USER)
        for name in names if self.table is not None else ():
            if name in self.table.models:
                return Price.of(self.table.models[name], self.table.source)
        return None

    def source(self, model: str) -> str | None:
        """Which table prices ``model`` (``"user"``, ``"shipped <date>"``), or None."""
        price = self.price(model)
        return None if price is None else price.source

    def cost(
        self,
        model: str,
        prompt_tokens: int,
        completion_tokens: int,
        cached_tokens: int = 0,
        cache_write_tokens: int = 0,
    ) -> float | None:
        """US dollars for one call, or None when the model has no price. Of the prompt tokens,
        ``cached_tokens`` cost the cache-read price and ``cache_write_tokens`` the cache-write
        price; reasoning tokens are among ``completion_tokens``."""
        price = self.price(model)
        if price is None:
            return None
        fresh = (prompt_tokens - cached_tokens - cache_write_tokens) * price.prompt
        cache = cached_tokens * price.cache_read + cache_write_tokens * price.cache_write
        return (fresh + cache + completion_tokens * price.completion) / 1e6

    def worst(self, model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
        """The most a call of ``prompt_tokens`` in and ``completion_tokens`` out can cost (every
        prompt token written to the cache where that costs more), or None with no price."""
        price = self.price(model)
        if price is None:
            return None
        per_prompt = max(price.prompt, price.cache_write)
        return (prompt_tokens * per_prompt + completion_tokens * price.completion) / 1e6

    def co2(self, model: str, tokens: int) -> float | None:
        """Grams of CO2 for one call, or None when the model's size is unknown."""
        return co2_grams(tokens, self.params.get(model), self.hardware)

    @classmethod
    def parse(
        cls,
        price_lines: list[str],
        param_lines: list[str],
        co2_lines: list[str],
        table: PriceTable | None = None,
    ) -> Pricing:
        """Read the ini lines (``table``: the shipped prices unless given); ValueError names
        the bad line."""
        prices: dict[str, tuple[float, ...]] = {}
        for line in price_lines:
            parts = line.split()
            if len(parts) not in (3, 4, 5):
                raise ValueError(
                    f"e2ebench_prices: {line!r}: write MODEL PROMPT_USD_PER_MTOK "
                    "COMPLETION_USD_PER_MTOK [CACHE_READ_USD_PER_MTOK [CACHE_WRITE_USD_PER_MTOK]]"
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
        return cls(prices, params, _hardware(co2_lines), table or shipped_prices())


def _hardware(co2_lines: list[str]) -> dict[str, float]:
    """The ``e2ebench_co2`` lines: KEY = VALUE, KEY one of :data:`DEFAULT_HARDWARE`."""
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
    return hardware
