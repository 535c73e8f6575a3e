"""The messages report (CSV) a console user asks for: streamed at once when the list is short, otherwise
built by a worker (pipeline/stages/message_report.py) and kept a day for download."""
from __future__ import annotations

import dataclasses

from config import get_settings
from models.db import database, is_uuid, utcnow
from models.message_report import MessageReport
from models.service import Service
from pipeline.domain.errors import NoResultFound
from pipeline.infrastructure.message_search import MessageSearch, count_matches
from workers.enqueue import follow_up
from workers.reports import build_message_report


def background_report(service: Service, user_id: object, search: MessageSearch,
                      language: str | None = None) -> MessageReport | None:
    """The report handed to a worker when more messages match than a response should stream, holding
    those accepted until now and written in `language` (the asking page's); None when few enough match to
    stream them at once."""
    threshold = get_settings().message_report_background_rows
    if count_matches(service, search, at_most=threshold) <= threshold:
        return None
    asked_at = utcnow()
    with database.atomic():
        report = MessageReport.create(service=service, created_by_user_id=user_id, created_at=asked_at,
                                      filters=dataclasses.replace(search, created_before=asked_at).as_dict(),
                                      language=language)
        follow_up(build_message_report, str(report.id))  # nothing else would build it, were it lost
    return report


def find_report(service: Service, report_id: str) -> MessageReport:
    """The service's report with this id; NoResultFound for another service's, or for what is no id."""
    found = MessageReport.get_or_none((MessageReport.id == report_id) & (MessageReport.service == service)
                                      ) if is_uuid(report_id) else None
    if found is None:
        raise NoResultFound()
    return found
