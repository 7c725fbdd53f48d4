"""From outcomes to verdicts and numbers: per-requirement verdicts, metrics, statistics."""
