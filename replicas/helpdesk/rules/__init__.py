"""Business rules of the helpdesk: plain functions over the episode's sqlite3 connection.

Every function takes the connection first; writes take ``now`` (the episode's virtual
clock). A refused request raises :class:`RuleViolation` (422 RecordInvalid naming the field
and the rule), :class:`NotFound` (404) or :class:`Conflict` (409); routes run inside one
transaction, so a refusal leaves the database untouched. One module per area: ``tickets``
(create, update, the status rules), ``merges``, ``macros``, ``users``, ``triggers`` and
``clock`` (business rules that act on their own), ``sla`` (metric events), ``jobs``,
``audits``, ``fields``; ``conditions`` and ``business_hours`` are their pure parts. Money
and accounts are the checkout's rules (replicas/checkout/rules).
"""
