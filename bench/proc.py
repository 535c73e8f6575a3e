"""CPU time of process trees, read from /proc: what a benchmark's processes spent, whatever else
the machine runs at the same time."""
from __future__ import annotations

import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # after the command name, which may hold spaces


def descendants(root: int) -> list[int]:
    """root and every live process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def tree_cpu_seconds(root: int) -> float:
    """User and system CPU seconds of root and its live descendants (fields utime and stime)."""
    total = 0
    for pid in descendants(root):
        if (fields := _stat(pid)) is not None:
            total += int(fields[11]) + int(fields[12])
    return total / _TICKS


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent on anything but idling and waiting for I/O, all cores
    together (/proc/stat): with every process's share, the database's and Redis's too."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / _TICKS


def pid_of(fragment: str) -> int:
    """The process whose command line contains fragment and whose parent's does not (a server's
    master, not its forked workers)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if fragment in cmdline:
                pids.append(int(entry.name))
    roots = [pid for pid in pids if (fields := _stat(pid)) is not None and int(fields[1]) not in pids]
    if not roots:
        raise LookupError(f"no process runs {fragment!r}")
    return roots[0]


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, printed before each round: a loaded machine skews a rate."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())
