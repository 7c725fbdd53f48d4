"""Isolation of generated code: the sandbox, its overlay and limits, processes, and the bounded
reader (intake) everything the agent wrote passes through."""
