"""Conformance scenarios: ``<app>_<area>.py``, each with ``scenario*(call)``
functions (harness.py)."""
