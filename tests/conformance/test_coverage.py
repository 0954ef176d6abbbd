"""Each app's COVERAGE.md is what the generator makes of its product's description now."""

from __future__ import annotations

import pytest

from tests.conformance import coverage


@pytest.mark.parametrize("app", coverage.APPS)
def test_coverage_file_is_generated(app: str) -> None:
    found = coverage.coverage(app)
    assert found.total, f"{app}: the description has no operation on a resource it serves"
    text = coverage.path_of(app).read_text() if coverage.path_of(app).exists() else ""
    assert text == coverage.render(found), (
        f"replicas/{app}/COVERAGE.md is not current: run `make coverage`")
    print(f"{app}: {found.served}/{found.total} operations served "
          f"({100 * found.served / found.total:.1f}%) per {found.described.source}")
