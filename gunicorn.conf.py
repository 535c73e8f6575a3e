"""Settings of the web process. gunicorn reads this file from the working directory.

With PostgreSQL the workers run gevent: psycopg2 and redis-py then wait for their servers through
gevent's hub (models.db), so one process serves many requests at once with no thread switching
between them, and the requests waiting together share one INSERT and one Redis round trip
(api.batching). The sqlite3 driver cannot yield to an event loop, so with SQLite the workers run
threads. WEB_CONCURRENCY, WEB_THREADS and WEB_CONNECTIONS size them.
"""
import os

bind = f"0.0.0.0:{os.environ.get('PORT', '6011')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
if os.environ.get("DATABASE_URL", "").startswith(("postgresql://", "postgres://")):
    worker_class = "gevent"
    worker_connections = int(os.environ.get("WEB_CONNECTIONS", "100"))
else:
    worker_class = "gthread"
    threads = int(os.environ.get("WEB_THREADS", "8"))
accesslog = os.environ.get("WEB_ACCESS_LOG", "-") or None
access_log_format = '%(h)s "%(m)s %(U)s" %(s)s %(b)s %(M)sms'


def post_worker_init(worker) -> None:  # noqa: ANN001 (gunicorn's Worker)
    # Requests gunicorn refuses itself (request line or headers too large) answer in the API's JSON
    # error shape, not gunicorn's HTML page.
    from api.server_errors import install

    install()
