"""The factory: a product's API description and a rules file compiled into a replica
(``compile``), its tool dependency graph (``graph``) and gated task families
(``synthesis``). ``source`` reads and checks a spec directory (``replicas/<app>/source/``)."""
