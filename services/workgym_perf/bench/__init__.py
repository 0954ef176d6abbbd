"""Benchmarks (`make bench`): figures printed, never asserted."""
