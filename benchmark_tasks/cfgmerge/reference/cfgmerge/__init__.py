"""cfgmerge: layered configuration from INI, JSON and TOML files.

Layers are loaded, deep-merged in order, overridden from environment variables,
interpolated, validated against a small schema subset and rendered or compared.
"""

from .diffing import diff
from .dump import dumps
from .errors import CfgmergeError, InterpolationError, LoadError, ValidationError
from .interpolation import interpolate
from .loader import load, loads
from .merge import apply_env, merge
from .schema import validate
from .values import coerce

__all__ = [
    "CfgmergeError",
    "InterpolationError",
    "LoadError",
    "ValidationError",
    "apply_env",
    "coerce",
    "diff",
    "dumps",
    "interpolate",
    "load",
    "loads",
    "merge",
    "validate",
]
