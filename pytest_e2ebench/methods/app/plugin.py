"""RealDevWorld's apps as a built-in plugin (docs/apps.md).

Registered by :func:`pytest_e2ebench.plugin.pytest_configure` as ``e2ebench-apps``. An app
task is evaluated by the ``AppCases`` evaluation style (``run.evaluation``); its record keys
(``app``, SQ) come from that style. This module holds the hooks an outside plugin would
implement for it; it has none of the report or design hooks yet.
"""

from __future__ import annotations
