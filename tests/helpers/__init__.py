"""Helpers the plugin's own tests share: imported as ``helpers.<module>`` (tests/ is on the path)."""
