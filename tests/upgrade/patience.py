"""Asking again when the service answers 503: its error says "try again later" (Retry-After: 5), and it
recorded nothing. A SQLite install under load answers so when a writer held the database longer than
its busy timeout; any client of a service does what the answer says."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

TRIES = 12
WAIT_SECONDS = 5.0  # the service's Retry-After


def patiently(request: Callable[[], requests.Response]) -> requests.Response:
    for _ in range(TRIES - 1):
        response = request()
        if response.status_code != 503:
            return response
        time.sleep(min(float(response.headers.get("Retry-After", WAIT_SECONDS)), WAIT_SECONDS))
    return request()


class PatientClient(NotificationsAPIClient):
    """The official client, asking again after a 503."""

    def request(self, method: str, url: str, data: Any = None, params: Any = None) -> Any:
        for _ in range(TRIES - 1):
            try:
                return super().request(method, url, data=data, params=params)
            except HTTPError as error:
                if error.status_code != 503:
                    raise
            time.sleep(WAIT_SECONDS)
        return super().request(method, url, data=data, params=params)
