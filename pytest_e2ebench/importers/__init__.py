"""Importers of third-party benchmark formats into task folders (``e2ebench import ...``)."""
