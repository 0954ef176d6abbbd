"""The kernel every WorkGym service shares: errors, settings, credentials, ASGI helpers,
observability and span names, references, row operations, path patterns, trajectories, the
episode registry in Redis and internal header names. It imports no other WorkGym package."""
