"""The `zgw` fixture: a running world of ZGW fakes (tests/zgw/fakes), stopped after the test."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.zgw.fakes import ZgwWorld, zgw_world


@pytest.fixture
def zgw() -> Iterator[ZgwWorld]:
    with zgw_world() as world:
        yield world
