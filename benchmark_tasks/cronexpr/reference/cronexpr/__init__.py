"""cronexpr: parse, evaluate, normalise and describe cron expressions.

>>> from datetime import datetime
>>> expr = CronExpr("*/15 9-17 * * MON-FRI")
>>> expr.next_after(datetime(2024, 1, 5, 17, 50))
datetime.datetime(2024, 1, 8, 9, 0)
>>> expr.describe()
'At every 15th minute past hour 9 through 17 on Monday through Friday'
"""

from .errors import CronError, CronSearchError, CronSyntaxError
from .expr import CronExpr, is_valid

__all__ = ["CronError", "CronExpr", "CronSearchError", "CronSyntaxError", "is_valid"]
