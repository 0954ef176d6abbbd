"""What every replica shares: the per-episode database store, the internal /_env
routes, dependencies and the app factory. An app provides a :class:`ReplicaSpec`."""
