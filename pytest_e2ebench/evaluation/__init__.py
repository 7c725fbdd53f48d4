"""Running a project's tests in the sandbox (runner, cross-checked by honeypot and tamper) and a
task's own checks."""
