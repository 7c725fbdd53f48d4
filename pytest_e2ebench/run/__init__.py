"""Run orchestration (docs/architecture.md, "Target layout"): today the records of runs and
stages (:mod:`.record`); the pipeline, the executor and the run context move here later."""
