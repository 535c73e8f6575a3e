"""Settings of the web process. gunicorn reads this file from the working directory.

With PostgreSQL the workers run gevent: psycopg2 and redis-py then wait for their servers through
gevent's hub (models.db), so one process serves many requests at once with no thread switching
between them, and the requests waiting together share one INSERT and one Redis round trip
(pipeline.infrastructure.throughput.fast.batching). The sqlite3 driver cannot yield to an event
loop, so with SQLite the workers run threads. WEB_CONCURRENCY, WEB_THREADS and WEB_CONNECTIONS size them.
"""
import ipaddress
import os
import sys

# Where the web process listens (the Procfile's console line reads the same setting): every interface
# unless LISTEN_ADDRESS says otherwise, as a container or a platform's router reaches the process from
# outside its own host; `python3 dev.py run` sets 127.0.0.1 (docs/decisions/operations.md).
listen_address = os.environ.get("LISTEN_ADDRESS", "").strip() or "0.0.0.0"
_bracketed = listen_address.startswith("[") and listen_address.endswith("]")
try:
    _ip = ipaddress.ip_address(listen_address[1:-1] if _bracketed else listen_address)
except ValueError:
    _ip = None
if _ip is None or (_ip.version == 6) != _bracketed:
    # The exit status gunicorn's master stops on, as for every other setting that cannot work.
    print("refusing to start: LISTEN_ADDRESS: must be an IPv4 address or an IPv6 one in brackets, e.g. 127.0.0.1,"
          " 0.0.0.0 or [::]", file=sys.stderr)
    raise SystemExit(4)
bind = f"{listen_address}:{os.environ.get('PORT', '6011')}"
# No control socket (gunicornc): nothing here uses it, and its default path (~/.gunicorn/gunicorn.ctl) is
# shared by every gunicorn of one user, so two deployments, or the web and the console, would take it
# from each other.
control_socket_disable = True
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
if os.environ.get("DATABASE_URL", "").startswith(("postgresql://", "postgres://")):
    worker_class = "api.gevent_worker.GeventWorker"
    worker_connections = int(os.environ.get("WEB_CONNECTIONS", "100"))
else:
    worker_class = "gthread"
    threads = int(os.environ.get("WEB_THREADS", "8"))
accesslog = os.environ.get("WEB_ACCESS_LOG", "-") or None
# Idle connections stay open longer than a load balancer or client keeps its own idle ones (AWS ALB
# and nginx upstreams 60 s, Heroku's router 90 s, Go's clients 90 s), so the other side always
# closes first: a server closing an idle connection just as a request is sent on it drops that
# request. gunicorn's default of 2 s did that to clients pausing a few seconds.
keepalive = int(os.environ.get("WEB_KEEPALIVE_SECONDS", "100"))

# Metrics: each worker process writes its samples under PROMETHEUS_MULTIPROC_DIR and /metrics reads
# them all. Set here, before the workers fork and first import prometheus_client; a directory made
# here is this server's alone and removed on exit; one given is emptied at start (stale samples of
# an earlier run would be summed in).
import shutil  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

_own_metrics_dir = "PROMETHEUS_MULTIPROC_DIR" not in os.environ
if _own_metrics_dir:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="notify-web-metrics-")
else:
    for _stale in Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).glob("*.db"):
        _stale.unlink()


def child_exit(server, worker):  # noqa: ANN001, ANN201  (gunicorn's hook signature)
    from observability.metrics import mark_process_dead

    mark_process_dead(worker.pid)


def on_exit(server):  # noqa: ANN001, ANN201
    if _own_metrics_dir:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)


# One JSON object per line for gunicorn's own lines too; the access line carries the request id.
logger_class = "observability.gunicorn_logger.JsonLogger"
access_log_format = '%(h)s "%(m)s %(U)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}o)s'


from api.unread_body import draining_unread_bodies, remember_request  # noqa: E402


def pre_request(worker, req) -> None:  # noqa: ANN001 (gunicorn's Worker and Request)
    remember_request(req)


def post_worker_init(worker) -> None:  # noqa: ANN001 (gunicorn's Worker)
    # Requests gunicorn refuses itself (request line or headers too large) answer in the API's JSON
    # error shape, not gunicorn's HTML page.
    from api.server_errors import install

    install()
    # A body the app answered without reading is drained or the connection closed (api/unread_body.py).
    worker.wsgi = draining_unread_bodies(worker.wsgi)
    # Everything loaded so far (the app, its libraries, phonenumbers' metadata: some 130,000 objects)
    # lives as long as the worker: kept out of the collector's full passes, which walked them all
    # and held every request of the worker for tens of milliseconds.
    import gc

    gc.collect()  # garbage of the start-up is collected, not kept for good
    gc.freeze()
    # The app is loaded: until this line a worker serves nothing (the benchmarks wait for it).
    worker.log.info("Worker ready (pid: %s)", worker.pid)
