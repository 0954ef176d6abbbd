"""Each app's COVERAGE.md is what the generator makes of its product's description now."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conformance import coverage


@pytest.mark.parametrize("app", coverage.APPS)
def test_coverage_file_is_generated(app: str, figure: Callable[[str], None]) -> None:
    found = coverage.coverage(app)
    assert found.total, f"{app}: the description has no operation on a resource it serves"
    text = coverage.path_of(app).read_text() if coverage.path_of(app).exists() else ""
    assert text == coverage.render(found), (
        f"replicas/{app}/COVERAGE.md is not current: run `make coverage`")
    figure(f"{app}: {found.served}/{found.total} of the product's operations on the "
           f"resources served ({100 * found.served / found.total:.1f}%), per "
           f"{found.described.source}")
