"""Notes: the company's shared notes about the people it deals with. A framework app: it
exists to keep the runtime generic (a second app in every test run, and in cross-app tasks
with the helpdesk), not to be trained on (``framework: true`` in its app.yaml).

Its spec is ``spec.py``'s ``SPEC`` (found by the catalogue).
"""
