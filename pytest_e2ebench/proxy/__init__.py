"""The metering proxy of CLI agents (issue 29): one per run, the only endpoint the agent's
sandboxed step reaches; it forwards model calls to the user's upstream (or a recording),
meters tokens, cost, steps and latency, enforces the run's budgets and logs the trajectory."""

from .dialects import Usage, dialect, usage
from .meter import Budget, Meter
from .server import MeteringProxy, Upstream
from .tape import Tape

__all__ = ["Budget", "Meter", "MeteringProxy", "Tape", "Upstream", "Usage", "dialect", "usage"]
