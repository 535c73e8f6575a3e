"""Dramatiq's Prometheus middleware, active only in processes of `dramatiq workers`.

Its metrics are made when a worker process boots (after_process_boot); the web process and the
tests' in-process workers enqueue and process through the same broker without that boot, so the
hooks wait for it. Its exposition server (forked by the CLI) serves every worker process's
metrics, ours included, on `dramatiq_prom_port` (9191).
"""
from __future__ import annotations

import errno
import time
from http.server import HTTPServer
from typing import Any

import dramatiq
from dramatiq.middleware import prometheus
from dramatiq.middleware.prometheus import Prometheus
from prometheus_client import CollectorRegistry, MetricsHandler
from prometheus_client.multiprocess import MultiProcessCollector

TAKE_OVER_SECONDS = 5.0


class WorkerMetrics(Prometheus):
    booted = False

    def after_process_boot(self, broker: dramatiq.Broker) -> None:
        super().after_process_boot(broker)
        self.booted = True

    def after_worker_shutdown(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if self.booted:
            super().after_worker_shutdown(broker, worker)

    def after_nack(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        if self.booted:
            super().after_nack(broker, message)

    def after_enqueue(self, broker: dramatiq.Broker, message: dramatiq.Message, delay: int) -> None:
        if self.booted:
            super().after_enqueue(broker, message, delay)

    def before_delay_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        if self.booted:
            super().before_delay_message(broker, message)

    def before_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message) -> None:
        if self.booted:
            super().before_process_message(broker, message)

    def after_process_message(self, broker: dramatiq.Broker, message: dramatiq.Message, *,
                              result: Any = None, exception: BaseException | None = None) -> None:
        if self.booted:
            super().after_process_message(broker, message, result=result, exception=exception)

    after_skip_message = after_process_message

    @property
    def forks(self) -> list:
        return [serve_exposition] if _cli() else []


def _cli() -> bool:
    from observability.metrics import _dramatiq_cli

    return _dramatiq_cli()


def metrics_handler() -> type[MetricsHandler]:
    """What Dramatiq's exposition server answers, made from prometheus_client's public parts: the
    samples every worker process of the host wrote into Dramatiq's directory, read at each request."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=prometheus.DB_PATH)
    return MetricsHandler.factory(registry)


def serve_exposition() -> int:
    """Dramatiq's exposition server, for a host running several `dramatiq` instances (the supervised
    worker runs one per process): the first binds the port and serves every process's samples (one
    directory per host); the others wait and take over when it is gone."""
    while True:
        try:
            server = HTTPServer((prometheus.HTTP_HOST, prometheus.HTTP_PORT), metrics_handler())
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
            time.sleep(TAKE_OVER_SECONDS)
            continue
        server.serve_forever()
