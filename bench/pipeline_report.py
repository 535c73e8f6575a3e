"""The pipeline benchmark's figures as printed: each round's lines, and the medians at the end."""
from __future__ import annotations

import argparse
import os
import statistics
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.pipeline_runs import Run


def summary(args: argparse.Namespace, noop: list[Run], floors: dict[str, list[Run]],
            runs: dict[tuple[str, str], list[Run]], processes: int) -> None:
    """The medians of every row, each against its baselines."""
    if noop:
        line("no-op Dramatiq", noop, "messages/s")
    for name, values in floors.items():
        line(f"R4 floor, {name}", values, "notifications/s", f"; share of no-op {shares(values, noop)}"
             " (the most R4 can be with a queue message per notification)")
    for (row, name), values in runs.items():
        if row == "r4":
            line(f"R4 simulated provider, {name}", values, "notifications/s",
                 f"; share of no-op {shares(values, noop)}")
            if floors:
                paired = [run.rate / floor.rate for run, floor in zip(values, floors[name], strict=True)]
                print(f"{'':36} against its floor in the same round: per round "
                      f"{', '.join(f'{ratio:.2f}x' for ratio in paired)}; median {statistics.median(paired):.2f}x "
                      "(issue 34's target: at least 0.5x)")
        else:
            per_process = [run.rate / processes for run in values]
            line(f"R5 HTTP gateway {args.gateway_delay_ms:.0f} ms, {name}", values, "notifications/s",
                 f"; per worker process {statistics.median(per_process):.0f}/s "
                 f"(per round {', '.join(f'{p:.0f}' for p in per_process)}; issue 34's target: at least 400/s "
                 f"with one worker process, --worker-processes 1), most in flight "
                 f"{max(run.most_in_flight for run in values)}")
        if args.together:
            accepted = [run.accepted_rate for run in values]
            print(f"{'':36} accepted meanwhile: median {statistics.median(accepted):.0f}/s "
                  f"(rounds: {', '.join(f'{rate:.0f}' for rate in accepted)})")


def line(label: str, runs: list[Run], unit: str, extra: str = "") -> None:
    rates = ", ".join(f"{run.rate:.0f}" for run in runs)
    print(f"{label:36} {statistics.median(run.rate for run in runs):7.0f} {unit}  (rounds: {rates}); "
          f"CPU per notification: {cpu_text(runs)}{extra}")


def cpu_text(runs: list[Run]) -> str:
    """Medians of the CPU per notification, and the rate the machine's cores would allow at it."""
    def median(field: str) -> float:
        return statistics.median(getattr(run, field) for run in runs)

    parts = [f"workers {median('worker_cpu_ms'):.2f} ms", f"web {median('web_cpu_ms'):.2f} ms"]
    if median("gateway_cpu_ms"):
        parts.append(f"gateway {median('gateway_cpu_ms'):.2f} ms")
    parts.append(f"whole machine {median('machine_cpu_ms'):.2f} ms (its {os.cpu_count()} cores allow at most "
                 f"{statistics.median(run.ceiling() for run in runs):.0f}/s without the gateway; a worker process "
                 f"at most {statistics.median(run.process_ceiling() for run in runs):.0f}/s on a core of its own)")
    return ", ".join(parts)


def shares(values: list[Run], noop: list[Run]) -> str:
    """The medians' ratio, and each round's against the no-op run measured beside it."""
    shares = [run.rate / base.rate for run, base in zip(values, noop, strict=True)]
    median = statistics.median(run.rate for run in values) / statistics.median(run.rate for run in noop)
    return (f"{median:.1%} (per round {', '.join(f'{share:.1%}' for share in shares)}; "
            f"median {statistics.median(shares):.1%})")
