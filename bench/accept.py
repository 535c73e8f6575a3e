"""Accept-path benchmark: the accept targets of issue #34 against the floor, in interleaved rounds of one run.

Every request carries a token of its own, as the official clients send them: signed with the live
key's secret, a current iat, and a jti so that no two are alike (core.tokens.create_token's unique; the
clients' own repeat within a second, which would let the service's cache of verified tokens skip
verification). The tokens of a load are made just before it, within their 30 s of validity, and wrk
sends each once (a load that would need more stops the run; `--max-rate` sets how many are made).
Servers run as the Procfile runs the web process: gunicorn with gunicorn.conf.py, its access log on.

- The service at WEB_CONCURRENCY=2 (the default): accepted sends per second and the web processes'
  CPU per accepted send (user+system time of gunicorn's master and workers from /proc, read just
  before and after the load, divided by the requests served), each against the floor's in the same
  round (targets: rate at least 0.75x, CPU at most 1.5x), and the 99th percentile latency at
  `--connections` (16) clients (target: at most 50 ms).
- The floor (bench/floor_app.py, served the same way): an endpoint doing only what no accept can
  skip (the token verified, the body parsed, the number checked, the template filled, the row
  INSERTed and a queue message pushed, both shared by the requests waiting together).
- A bare Flask JSON endpoint served the same way, the machine's ceiling for any Flask app.
- The service at each WEB_CONCURRENCY (default 1, 2 and 4) against 1, with the CPU per request of each.

Each round measures every side once (the order turned by one each round), each on a fresh server,
after a short warm-up load that is not counted, loaded by wrk on the same machine. Every request
opens its own connection (`Connection: close`): with kept-alive connections gunicorn's workers split
wrk's fixed set of connections by chance, and the baseline swung threefold between runs. A round
prints the load average before it and each side's figures; the end prints the medians and each
round's ratios.

gunicorn.conf.py picks gevent workers with PostgreSQL and threads with SQLite: the bare endpoint
and the floor are served with the settings of the database measured.

    python bench/accept.py --postgres postgresql://postgres@127.0.0.1:5432/bench_accept \
        [--key-type live] [--rounds 3] [--seconds 10] [--connections 16] [--concurrency 1 2 4] [--no-floor]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import (  # noqa: E402
    ROOT,
    drop_queues,
    free_port,
    granian_process,
    gunicorn_process,
    provision,
    remove_sends,
    service_env,
    vacuum,
    worktree,
    wrk_post,
)
from bench.proc import load_average, tree_cpu_seconds  # noqa: E402
from core.tokens import create_token  # noqa: E402

R1_CONCURRENCY = 2  # the web process's default (gunicorn.conf.py)


@dataclass
class Figures:
    rate: float  # requests per second
    cpu_ms: float  # CPU of the web processes per request
    p99_ms: float  # the 99th percentile of the requests' latency


@dataclass
class Side:
    name: str
    concurrency: int
    app: str  # "bare", "floor" or "service"
    granian_threads: int = 0  # served by granian with this many threads per process, not gunicorn
    tree: Path | None = None  # the service at another commit (--beside), served from its own checkout


def _load(url: str, path: str, body: str, headers: dict[str, str], seconds: float, connections: int,
          pid: int, tokens: list[str] | None) -> tuple[Figures, dict]:
    before = tree_cpu_seconds(pid)
    result = wrk_post(url + path, body, headers, seconds=seconds, connections=connections, tokens=tokens)
    used = tree_cpu_seconds(pid) - before
    return Figures(result["rps"], used * 1000 / max(result["requests"], 1), result["p99_ms"]), result


def measure(side: Side, args: argparse.Namespace, made: dict, env_base: dict[str, str]) -> Figures:
    env = {**env_base, "WEB_CONCURRENCY": str(side.concurrency)}
    headers = {"Content-Type": "application/json", "Connection": "close"}
    body = json.dumps({"phone_number": "06 12345678", "template_id": made["template_id"],
                       "personalisation": {"code": "123456"}, "reference": "bench"})
    path = "/v2/notifications/sms"
    if side.app == "bare":
        env["PYTHONPATH"] = str(ROOT / "bench")
        app, ready, path = "bare_app:app", "/json", "/json"
        body = json.dumps({"phone_number": "0612345678", "template_id": "x"})
    elif side.app == "floor":
        env.update(FLOOR_SERVICE_ID=made["service_id"], FLOOR_TEMPLATE_ID=made["template_id"],
                   FLOOR_TEMPLATE_BODY=made["template_body"], FLOOR_KEY_SECRET=made["key"][-36:])
        app, ready = "bench.floor_app:app", "/"
    else:
        app, ready = "app:app", "/_status"
    if side.tree is not None:
        env["PYTHONPATH"] = str(side.tree)
    server = (granian_process(app, env, free_port(), ready, side.granian_threads) if side.granian_threads
              else gunicorn_process(app, env, free_port(), ready, side.tree or ROOT))
    with server as (url, pid):
        def run(seconds: float) -> tuple[Figures, dict]:
            tokens = None
            if side.app != "bare":  # a new token for every request, minted just before the load (they live 30 s)
                tokens = [create_token(made["key"][-73:-37], made["key"][-36:], unique=True)
                          for _ in range(int(args.max_rate * seconds))]
            return _load(url, path, body, headers, seconds, args.connections, pid, tokens)

        if args.warmup:
            run(args.warmup)
        figures, result = run(args.seconds)
    if result["non_2xx"]:
        sys.exit(f"{result['non_2xx']} of {result['requests']} requests to {side.name} were refused: "
                 "the figures would be meaningless")
    if result["socket_errors"]:
        print(f"    ({side.name}: {result['socket_errors']} socket errors)")
    return figures


def _median(values: list[float]) -> float:
    return statistics.median(values)


def _per_round(values: list[float], unit: str = "") -> str:
    return ", ".join(f"{value:.2f}{unit}" for value in values)


def _against(title: str, served: list[Figures], reference: list[Figures]) -> None:
    """served's rate and CPU per request against reference's, round by round."""
    rates = [f.rate / o.rate for f, o in zip(served, reference, strict=True)]
    cpu = [f.cpu_ms / o.cpu_ms for f, o in zip(served, reference, strict=True)]
    print(f"\n{title}:")
    print(f"  rate: per round {_per_round(rates, 'x')}; median {_median(rates):.2f}x")
    print(f"  web CPU per send: per round {_per_round(cpu, 'x')}; median {_median(cpu):.2f}x")


def summarise(sides: list[Side], results: dict[str, list[Figures]], key_type: str, connections: int) -> None:
    bare = next(side for side in sides if side.app == "bare")
    floor = next((side for side in sides if side.app == "floor"), None)
    services = [side for side in sides if side.app == "service" and not side.granian_threads and side.tree is None]
    print("\nmedians of the rounds (each round's figures in brackets)")
    for side in sides:
        rates = [f.rate for f in results[side.name]]
        cpu = [f.cpu_ms for f in results[side.name]]
        p99 = [f.p99_ms for f in results[side.name]]
        print(f"  {side.name:28} {_median(rates):7.0f} req/s  ({', '.join(f'{r:.0f}' for r in rates)})   "
              f"{_median(cpu):5.2f} ms CPU/req  ({_per_round(cpu)})   p99 {_median(p99):6.1f} ms  "
              f"({', '.join(f'{p:.1f}' for p in p99)})")
    base = results[bare.name]
    main = next((side for side in services if side.concurrency == R1_CONCURRENCY), None)
    if main is not None:
        accept = results[main.name]
        paired = [f.rate / b.rate for f, b in zip(accept, base, strict=True)]
        print(f"\naccept ({key_type} key, a new token per request), WEB_CONCURRENCY={R1_CONCURRENCY}:")
        print(f"  rate / bare endpoint: per round {_per_round(paired, 'x')}; median {_median(paired):.2f}x")
        if floor is not None:
            lowest = results[floor.name]
            paired = [f.rate / o.rate for f, o in zip(accept, lowest, strict=True)]
            print(f"  rate / the floor's: per round {_per_round(paired, 'x')}; median {_median(paired):.2f}x   "
                  "(target >= 0.75x)")
            paired = [f.cpu_ms / o.cpu_ms for f, o in zip(accept, lowest, strict=True)]
            print(f"  web CPU per send / the floor's: per round {_per_round(paired, 'x')}; "
                  f"median {_median(paired):.2f}x   (target <= 1.5x)")
            paired = [o.rate / b.rate for o, b in zip(lowest, base, strict=True)]
            print(f"  the floor's rate / bare endpoint: per round {_per_round(paired, 'x')}; "
                  f"median {_median(paired):.2f}x")
        p99 = [f.p99_ms for f in accept]
        print(f"  p99 latency at {connections} connections: per round {_per_round(p99, ' ms')}; "
              f"median {_median(p99):.1f} ms   (target <= 50 ms)")
    granian = next((side for side in sides if side.granian_threads), None)
    if granian is not None and floor is not None:
        _against(f"{granian.name}, {granian.granian_threads} threads each, against the floor (served by gunicorn)",
                 results[granian.name], results[floor.name])
        print(f"  p99 latency at {connections} connections: "
              f"median {_median([f.p99_ms for f in results[granian.name]]):.1f} ms")
    beside = next((side for side in sides if side.tree is not None), None)
    if beside is not None and main is not None:
        _against(f"this tree's accept against {beside.name}, in the same rounds",
                 results[main.name], results[beside.name])
    one = next((side for side in services if side.concurrency == 1 and not side.granian_threads), None)
    if one is not None:
        for side in services:
            if side is one:
                continue
            paired = [f.rate / o.rate for f, o in zip(results[side.name], results[one.name], strict=True)]
            print(f"WEB_CONCURRENCY={side.concurrency} / 1: per round {_per_round(paired, 'x')}; "
                  f"median {_median(paired):.2f}x   CPU/req {_median([f.cpu_ms for f in results[one.name]]):.2f} -> "
                  f"{_median([f.cpu_ms for f in results[side.name]]):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2, help="seconds of load before each measured one")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2, 4],
                        help="WEB_CONCURRENCY settings of the service (R3 compares them with 1)")
    parser.add_argument("--postgres", default=None, help="a PostgreSQL URL; SQLite without it")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--key-type", choices=["test", "live"], default="live",
                        help="live: daily limits counted and a queue message per send")
    parser.add_argument("--max-rate", type=float, default=4000,
                        help="requests per second a load may reach: tokens made per second of load")
    parser.add_argument("--no-floor", dest="floor", action="store_false",
                        help="leave out the floor (bench/floor_app.py)")
    parser.add_argument("--granian-threads", type=int, default=0,
                        help="also serve the service with granian (pip install granian), this many threads "
                             "per process, at WEB_CONCURRENCY=2, and compare it with the floor")
    parser.add_argument("--beside", metavar="REVISION", default=None,
                        help="also serve the service at this git revision (its own checkout) at WEB_CONCURRENCY=2, "
                             "and compare this tree's with it round by round: what a change bought")
    args = parser.parse_args()
    if args.seconds > 25:
        sys.exit("--seconds must stay under the 30 s token lifetime")

    # A Redis server of the machine's, not an embedded one per run that would outlive the run.
    env = service_env(Path(tempfile.mkdtemp(prefix="bench-")), REDIS_URL=args.redis,
                      **({"DATABASE_URL": args.postgres} if args.postgres else {}))
    made = provision(env, args.key_type)
    sides = [Side(f"bare endpoint, {R1_CONCURRENCY} processes", R1_CONCURRENCY, "bare")]
    if args.floor:
        sides.append(Side(f"floor, {R1_CONCURRENCY} processes", R1_CONCURRENCY, "floor"))
    sides += [Side(f"accept, {n} process{'es' if n > 1 else ''}", n, "service") for n in args.concurrency]
    if args.granian_threads:
        sides.append(Side(f"accept on granian, {R1_CONCURRENCY} processes", R1_CONCURRENCY, "service",
                          args.granian_threads))
    with contextlib.ExitStack() as stack:
        if args.beside:
            tree = stack.enter_context(worktree(args.beside))
            sides.append(Side(f"accept at {args.beside}, {R1_CONCURRENCY} processes", R1_CONCURRENCY, "service",
                              tree=tree))
        run_rounds(sides, args, made, env)


def run_rounds(sides: list[Side], args: argparse.Namespace, made: dict, env: dict[str, str]) -> None:
    results: dict[str, list[Figures]] = {side.name: [] for side in sides}
    print(f"{'PostgreSQL' if args.postgres else 'SQLite'}, {args.key_type} key, a new token per request, "
          f"{args.connections} connections, "
          f"{args.seconds:g} s per side after {args.warmup:g} s of warm-up")
    try:
        for number in range(args.rounds):
            remove_sends(env, made["service_id"])  # each round starts from the same table
            if args.postgres:
                vacuum(env)
            print(f"round {number + 1}, load average before it {load_average()}")
            turned = sides[number % len(sides):] + sides[:number % len(sides)]
            for side in turned:
                figures = measure(side, args, made, env)
                results[side.name].append(figures)
                print(f"  {side.name:28} {figures.rate:7.0f} req/s   {figures.cpu_ms:5.2f} ms CPU/req   "
                      f"p99 {figures.p99_ms:6.1f} ms")
                time.sleep(1)  # the stopped server's sockets and processes go before the next starts
    finally:
        drop_queues(args.redis, env["QUEUE_NAMESPACE"])
        remove_sends(env, made["service_id"])
    summarise(sides, results, args.key_type, args.connections)


if __name__ == "__main__":
    main()
