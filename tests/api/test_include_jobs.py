"""The v2 list leaves out the rows of bulk jobs unless include_jobs is given as true ("true", "True"
as the Python client sends it, or "1"), as Notify's list does; the list still reads its index in order."""
from __future__ import annotations

import uuid

import pytest

from models.queries import NotificationFilters, notifications_page_query
from tests.admin_helpers import service_headers
from tests.api.test_get_notifications_query_plan import assert_index_range_without_sort, plan
from tests.factories import create_notification


def _listed(client, key, query=""):
    response = client.get(f"/v2/notifications{query}", headers=service_headers(key))
    assert response.status_code == 200
    return [n["id"] for n in response.get_json()["notifications"]]


@pytest.mark.parametrize("value,included", [("true", True), ("True", True), ("1", True), ("false", False),
                                            ("no", False)])
def test_include_jobs(client, service, key, value, included):
    by_api = create_notification(service=service)
    of_job = create_notification(service=service, job_id=uuid.uuid4(), job_row_number=0)
    assert _listed(client, key) == [str(by_api.id)]
    expected = {str(by_api.id), str(of_job.id)} if included else {str(by_api.id)}
    assert set(_listed(client, key, f"?include_jobs={value}")) == expected


def test_leaving_jobs_out_still_reads_the_index_in_order(service):
    query = notifications_page_query(service, "live", NotificationFilters())
    assert_index_range_without_sort(plan(query))
