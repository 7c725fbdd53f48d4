"""Reports: the terminal summary table and results.json."""
