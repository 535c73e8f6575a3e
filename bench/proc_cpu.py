"""CPU time of a process and its children, read from /proc (Linux)."""
from __future__ import annotations

import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: the fields after it are split.
    return text[text.rindex(")") + 2:].split()


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[1]) == pid:  # fields[1] is the parent's pid
                found.append(int(entry.name))
    return found


def tree_cpu_seconds(pid: int) -> float:
    """User plus system time of pid and its live children (gunicorn's master and its workers)."""
    total = 0
    for each in [pid, *children(pid)]:
        fields = _stat(each)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / _TICKS


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])
