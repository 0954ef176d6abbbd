"""``workgym bench``: an agent over a suite of tasks × seeds × trials, recorded episode by
episode in a results JSON (``results``), scored with pass@k and pass^k (``metrics``),
printed as a table (``summary``) and rendered as a self-contained HTML report (``report``).

A *problem* is one task instance: a task at one seed. Each problem is run ``trials`` times;
an episode *passes* when its reward report says ``success``. pass^k (τ-bench) is the chance
that k trials of a problem all pass, pass@k that at least one does, averaged over problems.
"""
