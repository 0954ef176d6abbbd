"""The factory: an API description and a rules file in, a replica, its world and gated task
families out (``workgym factory compile|graph|tasks``)."""
