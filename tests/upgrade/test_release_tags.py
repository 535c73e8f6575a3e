"""Every release is a git tag: each release tests/upgrade/releases.py names has an annotated tag
`v<version>` on the commit it names, so an operator gets it by name (`git checkout v0.8.0`, as the
release step's refusal of a too old database says). A clone brings the tags, as it brings the history
the upgrade tests already need; a missing tag fails here. Only a checkout that carries no tag at all (a
copy made without refs, where no tag can be checked) skips, saying so."""
from __future__ import annotations

import subprocess

import pytest

from tests.upgrade.release_tree import ROOT, full_commit
from tests.upgrade.releases import RELEASES, Release


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("release", RELEASES, ids=lambda release: release.version)
def test_each_release_is_an_annotated_tag_on_its_commit(release: Release):
    if not _git("tag", "--list").stdout.strip():
        pytest.skip("this checkout carries no tags at all (copied without its refs): nothing to check")
    tag = f"v{release.version}"
    kind = _git("cat-file", "-t", f"refs/tags/{tag}")
    assert kind.returncode == 0, (f"no tag {tag}: make it with `git tag -a {tag} {release.commit} -m 'Release "
                                  f"{release.version}'` and push it (or `git fetch --tags` in a clone without it)")
    assert kind.stdout.strip() == "tag", f"{tag} is a lightweight tag: releases are annotated tags (git tag -a)"
    tagged = _git("rev-parse", "--verify", f"refs/tags/{tag}^{{commit}}").stdout.strip()
    assert tagged == full_commit(release.commit), f"{tag} is on {tagged}, releases.py names {release.commit}"
