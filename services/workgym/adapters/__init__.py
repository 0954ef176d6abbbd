"""Adapters from the session protocol (workgym.session) to the trainers' own environment
interfaces, each framework an optional extra: ``openenv``, ``skyrl``, ``verifiers``, ``trl``
(interface only: trl is not imported), ``verl``. Shared: ``common`` (sessions in-process or on
a server, a task's tools before any episode, tools bound from JSON schemas), ``textloop``
(the text/token episode loop of SkyRL and verl, framework-free), ``toolcalls`` (the
model's tool calls read from its text) and ``datasets`` (a task set's rows, each framework's
shape)."""
