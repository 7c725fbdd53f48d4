"""Commands around the plugin: the self-check, verify-import, the local model, the importers of
peer datasets, the scripted servers of the test suite."""
