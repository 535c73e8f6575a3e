"""An older release as its operators ran it: its tree taken from git, and a venv of its own built from
its own requirements.txt.

The venvs are kept between runs under ~/.cache/notify-nl/releases/<commit>/ (outside the repository:
a fresh clone of main finds them), built once per commit and requirements. CI runs the SQLite and
the PostgreSQL suites at the same time, so a build holds a file lock (fcntl) that the other waits on.
"""
from __future__ import annotations

import fcntl
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("NOTIFY_RELEASE_CACHE", Path.home() / ".cache" / "notify-nl" / "releases"))
PIP_TIMEOUT_SECONDS = 1800


class ReleaseUnavailable(AssertionError):
    """The release cannot be run here: the reason is the message, for the failing test to print."""


def _git(*args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, timeout=120)
    except FileNotFoundError as error:
        raise ReleaseUnavailable("git is not installed: the upgrade tests take older releases from git") from error
    if done.returncode != 0:
        raise ReleaseUnavailable(f"git {' '.join(args)} failed: {done.stderr.decode(errors='replace').strip()}; "
                                 "the upgrade tests need the repository's history (a full clone, not a shallow one)")
    return done.stdout


def full_commit(commit: str) -> str:
    return _git("rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()


def extract_tree(commit: str, into: Path) -> Path:
    """The release's files as its commit holds them (git archive), in `into`."""
    archive = _git("archive", "--format=tar", full_commit(commit))
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def release_python(commit: str, beside_lock: tuple[str, ...] = ()) -> Path:
    """The python of the release's own venv, built from its requirements.txt (and what its operators
    install beside it, tests/upgrade/releases.py) unless the cache holds it."""
    commit = full_commit(commit)
    requirements = _git("show", f"{commit}:requirements.txt")
    # A venv is bound to the interpreter it was made from: another one (a Python upgrade) builds anew.
    wanted = hashlib.sha256(requirements + f"{sys.base_prefix} {sys.version} {beside_lock}".encode()).hexdigest()
    home = CACHE / commit
    python, marker = home / "venv" / "bin" / "python", home / "requirements.sha256"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{commit}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other suite waits here while this one builds
        if python.exists() and marker.exists() and marker.read_text() == wanted:
            return python
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        (home / "requirements.txt").write_bytes(requirements)
        _build(home, python, beside_lock)
        marker.write_text(wanted)
    return python


def _build(home: Path, python: Path, beside_lock: tuple[str, ...]) -> None:
    # pip as this machine configures it (its index, find-links and constraints apply). What is installed
    # beside a lock with hashes is a command of its own: pip wants a hash for every line of such a file.
    steps = [[sys.executable, "-m", "venv", str(home / "venv")],
             [str(python), "-m", "pip", "install", "-q", "-r", str(home / "requirements.txt")]]
    if beside_lock:
        steps.append([str(python), "-m", "pip", "install", "-q", *beside_lock])
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=PIP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired as error:
            raise ReleaseUnavailable(f"building the release venv in {home} took over {PIP_TIMEOUT_SECONDS} s: "
                                     f"{' '.join(step)}") from error
        if done.returncode != 0:
            shutil.rmtree(home / "venv", ignore_errors=True)
            raise ReleaseUnavailable(f"could not build the release venv in {home}: {' '.join(step)} exited "
                                     f"{done.returncode}:\n{(done.stdout + done.stderr)[-3000:]}")
