"""Accept-path benchmark: rows R1-R3 of issue #18, in interleaved rounds of one run.

- R1: accepted sends per second against a bare Flask JSON endpoint served the same way (gunicorn
  with the project's gunicorn.conf.py as the Procfile serves the web process, WEB_CONCURRENCY=2).
- R2: CPU per accepted send of the web processes: user+system time of gunicorn's master and
  workers from /proc, read just before and just after the load, divided by the requests served.
- R3: the accept rate with each WEB_CONCURRENCY (default 1, 2 and 4) against 1, and the CPU per
  request of each.
- The floor (bench/floor_app.py, served the same way with WEB_CONCURRENCY=2): an endpoint doing
  only what no accept can skip (a cached token, the body parsed, the number checked, the template
  filled, the row INSERTed and a queue message pushed, both shared by the requests waiting
  together). Its rate against the bare endpoint is the most R1 can be here, its CPU per request the
  least R2 can be; `--no-floor` leaves it out.

Each round measures every side once (the bare endpoint, the floor, then the service at each
concurrency, the order turned by one each round), each on a fresh server, after a short warm-up load that is
not counted, loaded by wrk on the same machine. Every request opens its own connection
(`Connection: close`): with kept-alive connections gunicorn's workers split wrk's fixed set of
connections by chance, and the baseline swung threefold between runs. A round prints the load
average before it and each side's figures; the end prints the medians and each round's ratios.

gunicorn.conf.py picks gevent workers with PostgreSQL and threads with SQLite: the bare endpoint
and the floor are served with the settings of the database measured.

    python bench/accept.py --postgres postgresql://postgres@127.0.0.1:5432/bench_accept \
        [--key-type live] [--rounds 3] [--seconds 10] [--connections 16] [--concurrency 1 2 4] [--no-floor]
"""
from __future__ import annotations

import argparse
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
    gunicorn_process,
    provision,
    remove_sends,
    service_env,
    vacuum,
    wrk_post,
)
from bench.proc import load_average, tree_cpu_seconds  # noqa: E402
from core.tokens import create_token  # noqa: E402

R1_CONCURRENCY = 2  # the web process's default (gunicorn.conf.py)


@dataclass
class Figures:
    rate: float  # requests per second
    cpu_ms: float  # CPU of the web processes per request


@dataclass
class Side:
    name: str
    concurrency: int
    app: str  # "bare", "floor" or "service"


def _load(url: str, path: str, body: str, headers: dict[str, str], seconds: float, connections: int,
          pid: int) -> tuple[Figures, dict]:
    before = tree_cpu_seconds(pid)
    result = wrk_post(url + path, body, headers, seconds=seconds, connections=connections)
    used = tree_cpu_seconds(pid) - before
    return Figures(result["rps"], used * 1000 / max(result["requests"], 1)), result


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
    with gunicorn_process(app, env, free_port(), ready) as (url, pid):
        def run(seconds: float) -> tuple[Figures, dict]:
            if side.app != "bare":  # a token lives 30 s: one per load, minted as the clients mint them
                token = create_token(made["key"][-73:-37], made["key"][-36:])
                headers["Authorization"] = f"Bearer {token}"
            return _load(url, path, body, headers, seconds, args.connections, pid)

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


def summarise(sides: list[Side], results: dict[str, list[Figures]], key_type: str) -> None:
    bare = next(side for side in sides if side.app == "bare")
    floor = next((side for side in sides if side.app == "floor"), None)
    services = [side for side in sides if side.app == "service"]
    print("\nmedians of the rounds (each round's figures in brackets)")
    for side in sides:
        rates = [f.rate for f in results[side.name]]
        cpu = [f.cpu_ms for f in results[side.name]]
        print(f"  {side.name:28} {_median(rates):7.0f} req/s  ({', '.join(f'{r:.0f}' for r in rates)})   "
              f"{_median(cpu):5.2f} ms CPU/req  ({', '.join(f'{c:.2f}' for c in cpu)})")
    base = results[bare.name]
    r1 = next((side for side in services if side.concurrency == R1_CONCURRENCY), None)
    if r1 is not None:
        paired = [f.rate / b.rate for f, b in zip(results[r1.name], base, strict=True)]
        print(f"\nR1 accept ({key_type} key) / bare endpoint, WEB_CONCURRENCY={R1_CONCURRENCY}: "
              f"per round {', '.join(f'{r:.1%}' for r in paired)}; median {_median(paired):.1%}   (target >= 50%)")
        cpu = [f.cpu_ms for f in results[r1.name]]
        print(f"R2 CPU per accepted send, web processes, WEB_CONCURRENCY={R1_CONCURRENCY}: "
              f"per round {', '.join(f'{c:.2f}' for c in cpu)} ms; median {_median(cpu):.2f} ms   (target <= 0.5 ms)")
    if floor is not None:
        paired = [f.rate / b.rate for f, b in zip(results[floor.name], base, strict=True)]
        cpu = [f.cpu_ms for f in results[floor.name]]
        print(f"   the floor, the most R1 can be: per round {', '.join(f'{r:.1%}' for r in paired)}; "
              f"median {_median(paired):.1%}")
        print(f"   the floor, the least R2 can be: per round {', '.join(f'{c:.2f}' for c in cpu)} ms; "
              f"median {_median(cpu):.2f} ms")
    one = next((side for side in services if side.concurrency == 1), None)
    if one is not None:
        for side in services:
            if side is one:
                continue
            paired = [f.rate / o.rate for f, o in zip(results[side.name], results[one.name], strict=True)]
            print(f"R3 WEB_CONCURRENCY={side.concurrency} / 1: per round {', '.join(f'{r:.2f}x' for r in paired)}; "
                  f"median {_median(paired):.2f}x   CPU/req {_median([f.cpu_ms for f in results[one.name]]):.2f} -> "
                  f"{_median([f.cpu_ms for f in results[side.name]]):.2f} ms   (target >= 1.0x)")


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
    parser.add_argument("--no-floor", dest="floor", action="store_false",
                        help="leave out the floor (bench/floor_app.py)")
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
    results: dict[str, list[Figures]] = {side.name: [] for side in sides}
    print(f"{'PostgreSQL' if args.postgres else 'SQLite'}, {args.key_type} key, {args.connections} connections, "
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
                print(f"  {side.name:28} {figures.rate:7.0f} req/s   {figures.cpu_ms:5.2f} ms CPU/req")
                time.sleep(1)  # the stopped server's sockets and processes go before the next starts
    finally:
        drop_queues(args.redis, env["QUEUE_NAMESPACE"])
        remove_sends(env, made["service_id"])
    summarise(sides, results, args.key_type)


if __name__ == "__main__":
    main()
