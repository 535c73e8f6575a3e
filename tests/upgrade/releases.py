"""The releases this project has named, oldest first: each a version and the commit it was cut from.

The upgrade tests (tests/upgrade/) read this list: every release named here, and the current tree,
must upgrade in place to the current release (the working tree). A release older than OLDEST_SUPPORTED is not tested,
and docs/versions-and-dependencies.md says it does not upgrade in place.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Release:
    version: str
    commit: str
    organisations: bool  # whether its API has organisations (0.9.0 brought them)
    # What its operators install beside its requirements.txt (pip requirements): none, but where the
    # release's own lock was short of what its processes import, as a later release's upgrade notes say.
    beside_lock: tuple[str, ...] = ()


RELEASES = (
    # The oldest supported release: the frozen migrations' baseline step reproduces its schema.
    Release("0.8.0", "3650bb4", organisations=False),
    Release("0.9.0", "5b216cf", organisations=True),
    # The release before the current one: a rolling deploy runs it beside the current release's schema.
    # Its lock lacks packaging, which its web process imports on PostgreSQL (gunicorn's gevent worker;
    # issue 50): an installation on PostgreSQL served only once packaging was installed by hand.
    Release("1.0.0", "56709e3", organisations=True, beside_lock=("packaging==26.4",)),
)
OLDEST_SUPPORTED = RELEASES[0]
PREVIOUS = RELEASES[-1]
