"""Shared runtime of every WorkGym service: settings, errors, Redis, JSON helpers."""
