"""Data from outside the harness, taken in at one guarded place (issue 26, classes 3 and 4).

:mod:`.parse` reads and parses agent-written and peer-published JSON, TOML and text with
size and depth bounds and no link followed; :mod:`.peer` checks what a published dataset
names (ids, paths) before an importer uses it. Whatever goes wrong is an
:class:`~pytest_e2ebench.errors.AgentFileError`: the author's failure, never the harness's.
``tests/test_boundary_parse.py`` fails when a module outside its allow-list calls the raw
primitives (``json.load(s)``, ``tomllib.load(s)``, ``open``, ``read_text``, ``read_bytes``).
"""
