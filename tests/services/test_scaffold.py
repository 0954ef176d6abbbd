"""``workgym new-replica`` writes into a source checkout, and only there."""

from __future__ import annotations

from pathlib import Path

import pytest

from workgym.scaffold import ScaffoldError, scaffold


def test_outside_a_checkout_it_writes_nothing_and_says_where_to_run_it(tmp_path: Path) -> None:
    # An installed wheel's package folder is not a checkout: no docker-compose.yml beside it.
    with pytest.raises(ScaffoldError, match="source checkout") as raised:
        scaffold("shop", root=tmp_path)
    assert "\n" not in str(raised.value)
    assert list(tmp_path.iterdir()) == []
