"""An upgrade from an older release, done as an operator does it: the release's tree and venv, its
release step on an empty database, its processes given a world through its own doors; then those
processes stopped, the current release step run on the same database, and the current processes
started on it. What each release's API showed is kept, with the schema and what the console shows."""
from __future__ import annotations

import contextlib
import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from config import get_settings, redis_url
from models.db import connect_url
from tests.private_databases import private_database_url
from tests.schema_shape import Shape, schema_shape
from tests.upgrade.console_session import ConsoleSession
from tests.upgrade.deployment import CURRENT, Install, Tree
from tests.upgrade.release_tree import extract_tree, release_python
from tests.upgrade.releases import Release
from tests.upgrade.world import Operator, World, build_world, read_world


@dataclass
class Upgrade:
    release: Release
    tree: Tree  # the release's own
    install: Install  # upgraded: the current release step has run on it
    world: World
    before: dict[str, Any]  # the world as the release's API showed it
    after: dict[str, Any]  # as the current API shows it, with the release's keys
    shape: Shape  # the upgraded database's schema
    console: dict[str, Any]  # what the current console shows of the world


def shape_of(database_url: str) -> Shape:
    db = connect_url(database_url)
    db.connect()
    try:
        return schema_shape(db)
    finally:
        db.close()


def fresh_install_shape(directory: Path, stack: contextlib.ExitStack) -> Shape:
    """The schema the current release step makes on an empty database of the suite's kind."""
    directory.mkdir()
    install = Install(directory, stack.enter_context(private_database_url("upgrade_fresh")), redis_url(get_settings()))
    install.release_step(CURRENT)
    return shape_of(install.database_url)


def upgrade_from(release: Release, directory: Path, stack: contextlib.ExitStack) -> Upgrade:
    tree = Tree(release.version, extract_tree(release.commit, directory / "tree"),
                release_python(release.commit, release.beside_lock))
    label = release.version.replace(".", "")
    install = Install(directory, stack.enter_context(private_database_url(f"upgrade_from_{label}")),
                      redis_url(get_settings()))
    stack.callback(install.forget_redis)
    install.release_step(tree)
    operator = Operator(install, tree)
    with install.running(tree):
        world = build_world(operator, organisations=release.organisations)
        before = read_world(operator, world)
    install.release_step(CURRENT)
    shape = shape_of(install.database_url)
    with install.running(CURRENT, worker=False):
        after = read_world(Operator(install, CURRENT), world)
        console = console_view(install, world)
    return Upgrade(release, tree, install, world, before, after, shape, console)


def console_view(install: Install, world: World) -> dict[str, Any]:
    """The current console, signed into by the platform admin the older release's console made: its
    messages reports (live and team keys; the test key), the job's page, the received texts."""
    assert world.account is not None
    console = ConsoleSession(install.console_url)
    console.sign_in(world.account)
    service = f"/services/{world.service_id}"

    def report(key_type: str) -> list[dict[str, str]]:
        answer = console.get(f"{service}/notifications.csv?key_type={key_type}")
        return list(csv.DictReader(io.StringIO(answer.content.decode("utf-8-sig"))))  # Dutch, as the console

    return {"messages": report("live-team"), "test messages": report("test"),
            "job page": console.get(f"{service}/jobs/{world.job_id}").text,
            "conversations": console.get(f"{service}/conversations").text}
