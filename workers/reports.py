"""Actors of the reports queue: the console's messages reports, built in the background."""
from __future__ import annotations

import logging

import peewee

from pipeline.infrastructure.storage import report_storage
from pipeline.stages import message_report
from workers.actors import actor

log = logging.getLogger(__name__)


@actor(queue_name="reports", max_retries=5, min_backoff=1000, max_backoff=60_000,
                on_retry_exhausted="message_report_failed",
                retry_when=lambda retries, exc: isinstance(exc, (peewee.OperationalError, peewee.InterfaceError,
                                                                 OSError)) and retries < 5)
def build_message_report(report_id: str) -> None:
    message_report.build_report(report_id, report_storage())


@actor(queue_name="reports", max_retries=3)
def message_report_failed(message_data: dict, retry_info: dict) -> None:
    log.warning("messages report %s could not be built", message_data["args"][0])
    message_report.fail_report(message_data["args"][0])


@actor(queue_name="periodic", max_retries=0)
def purge_message_reports() -> None:
    """Background reports past their day, and their files (scheduled in workers/periodic.py)."""
    message_report.purge_reports(report_storage())
