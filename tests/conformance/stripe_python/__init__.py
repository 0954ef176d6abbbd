"""Running stripe-python's own test suite (its sdist's ``tests/``) against an episode."""
