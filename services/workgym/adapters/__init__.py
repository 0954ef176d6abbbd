"""Adapters from the session protocol (workgym.session) to the trainers' own environment
interfaces. Each framework's adapter is an optional extra; ``toolcalls`` is shared by the
adapters whose framework hands the environment the model's text."""
