"""What every replica shares: the per-episode database store and snapshots, the internal
/_env routes, dependencies, list-route parameters and paging, row helpers, the clock, row
operations and factories, the seed's identity (the people every app's world is about),
writing a generated world, and the app factory. An app provides a :class:`ReplicaSpec`;
replicas/README.md is the contract."""
