"""A project's test environment: its virtual environment (uv, build backends, wheels, integrity),
the generated workspace, web tools, vendored files, fetched sources."""
