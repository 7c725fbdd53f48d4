"""e2ebench-rubric: an example benchmark method for pytest-e2ebench, installed beside it.

A task's ``[rubric]`` table weighs its requirements (``weights = { R1 = 2.0, R2 = 1.0 }``; a
requirement it does not name weighs 1.0). Each run gets ``rubric_score``, the weighted share of
its implemented requirements, from a stage of its own keyed on the weights; results.json gets a
``rubric`` section. Everything goes through the harness's public method interface (see
README.md and :mod:`.plugin`); nothing in pytest_e2ebench is changed for it.
"""

__version__ = "0.1.0"
