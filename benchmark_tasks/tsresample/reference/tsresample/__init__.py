"""tsresample: time-series processing for CSV data using only the standard library.

Read timestamped CSV data into a :class:`Frame`, resample it into epoch-aligned buckets,
fill gaps, compute trailing rolling windows, flag outliers and write CSV or JSON.
"""

from .errors import DataError, TsResampleError, UsageError
from .fill import fill_gaps
from .frame import Frame
from .outliers import flag_outliers
from .reader import BadRow, ReadResult, parse_csv, read_csv
from .resample import resample
from .rolling import rolling
from .timeutil import format_timestamp, parse_frequency, parse_timestamp
from .writer import format_number, to_csv, to_json

__all__ = [
    "BadRow",
    "DataError",
    "Frame",
    "ReadResult",
    "TsResampleError",
    "UsageError",
    "fill_gaps",
    "flag_outliers",
    "format_number",
    "format_timestamp",
    "parse_csv",
    "parse_frequency",
    "parse_timestamp",
    "read_csv",
    "resample",
    "rolling",
    "to_csv",
    "to_json",
]
