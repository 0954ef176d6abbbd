"""The factory: a product's API description and a rules file compiled into a replica, its
tool dependency graph and gated task families (no LLM)."""
