"""The tracker replica, Jira Cloud's REST API: issues, workflows, JQL, sprints.

Its spec is ``spec.py``'s ``SPEC`` (found by the catalogue); see README.md for the endpoints
and Jira's reference for each, the rules and the data's mess.
"""
