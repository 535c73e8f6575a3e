"""Accept-path benchmark: accepted sends per second against a bare Flask JSON endpoint.

Both are served the same way, by gunicorn with the project's gunicorn.conf.py as the Procfile
serves the web process, loaded by wrk on the same machine in the same run. That configuration picks
gevent workers with PostgreSQL and threads with SQLite, so each database's run has its own baseline:
the bare endpoint served with that database's settings. Reports absolute figures and the ratios.

Every request opens its own connection (`Connection: close`). With kept-alive connections gunicorn's
two workers split wrk's fixed set of connections by chance: when one worker takes them all, the
bare endpoint runs on one core (about 1,000 req/s here) and when they split, on two (about
3,000), so the ratio swung between runs by a factor of three.

    python bench/accept.py [--seconds 10] [--connections 16] [--postgres postgresql://...] [--key-type live]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.auth import create_token  # noqa: E402
from bench.harness import ROOT, free_port, gunicorn, interleaved, report, service_env, wrk_post  # noqa: E402


def measure_bare(database_url: str | None, seconds: int, connections: int) -> float:
    """The bare endpoint under the gunicorn settings the service gets with database_url."""
    env = service_env(Path(tempfile.mkdtemp()), PYTHONPATH=str(ROOT / "bench"),
                      **({"DATABASE_URL": database_url} if database_url else {}))
    with gunicorn("bare_app:app", env, free_port(), "/json") as url:
        result = wrk_post(url + "/json", '{"phone_number": "0612345678", "template_id": "x"}',
                          {"Content-Type": "application/json", "Connection": "close"},
                          seconds=seconds, connections=connections)
    return result["rps"]


def measure_service(database_url: str | None, seconds: int, connections: int, redis_url: str, key_type: str) -> dict:
    instance = Path(tempfile.mkdtemp(prefix="bench-"))
    # A Redis server of the machine's, not an embedded one per run that would outlive the run.
    env = service_env(instance, REDIS_URL=redis_url, **({"DATABASE_URL": database_url} if database_url else {}))
    made = json.loads(subprocess.run([sys.executable, "bench/provision.py", key_type], cwd=ROOT, env=env,
                                     capture_output=True, text=True, check=True).stdout)
    body = json.dumps({"phone_number": "06 12345678", "template_id": made["template_id"],
                       "personalisation": {"code": "123456"}, "reference": "bench"})
    with gunicorn("app:app", env, free_port(), "/_status") as url:
        token = create_token(made["key"][-73:-37], made["key"][-36:])  # valid 30 s; runs are shorter
        return wrk_post(url + "/v2/notifications/sms", body,
                        {"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                         "Connection": "close"},
                        seconds=seconds, connections=connections)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are reported")
    parser.add_argument("--postgres", default=None, help="also measure on this PostgreSQL URL")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--key-type", choices=["test", "live"], default="test",
                        help="live: daily limits counted and a queue message per send")
    args = parser.parse_args()
    if args.seconds > 25:
        sys.exit("--seconds must stay under the 30 s token lifetime")
    runs = [("SQLite", None)] + ([("PostgreSQL", args.postgres)] if args.postgres else [])

    def service(name: str, url: str | None) -> float:
        result = measure_service(url, args.seconds, args.connections, args.redis, args.key_type)
        if result["non_2xx"]:
            sys.exit(f"{result['non_2xx']} sends were refused on {name}: the figures would be meaningless")
        return result["rps"]

    for name, url in runs:
        bare, rates = interleaved(args.rounds, [(name, url)], lambda url=url: measure_bare(url, args.seconds, args.connections),
                                  service)
        report(f"bare Flask endpoint ({name} settings), req/s", bare, f"accept path ({args.key_type} key)", rates,
               "sends/s")

if __name__ == "__main__":
    main()
