"""The helpdesk replica, Zendesk Support's API v2: tickets, users, business rules, help center.

Its spec is ``spec.py``'s ``SPEC`` (found by the catalogue: importing this package, e.g. for
its actors model, imports no routes); see README.md for entities, rules, API and the data's
mess.
"""
