"""The upgrades every test here looks at, each made once per run (a world built on an older release
takes a minute) and kept until the run ends, when its databases are dropped."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pytest

from tests.schema_shape import Shape
from tests.upgrade.releases import Release
from tests.upgrade.upgrade_run import Upgrade, fresh_install_shape, upgrade_from


@pytest.fixture(scope="session")
def upgrades(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Release], Upgrade]]:
    made: dict[str, Upgrade | Exception] = {}
    with contextlib.ExitStack() as stack:
        def upgrade(release: Release) -> Upgrade:
            if release.version not in made:
                directory = tmp_path_factory.mktemp(f"upgrade-from-{release.version}")
                try:
                    made[release.version] = upgrade_from(release, directory, stack)
                except Exception as error:
                    made[release.version] = error
                    raise
            found = made[release.version]
            if isinstance(found, Exception):
                pytest.fail(f"the upgrade from {release.version} failed in an earlier test: {found}"[:4000])
            return found

        yield upgrade


@pytest.fixture(scope="session")
def fresh_shape(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Shape]:
    with contextlib.ExitStack() as stack:
        yield fresh_install_shape(tmp_path_factory.mktemp("fresh-install") / "install", stack)
