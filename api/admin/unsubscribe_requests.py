"""A service's unsubscribe requests (hosted one-click unsubscribe), as a CSV report to download."""
from __future__ import annotations

from flask import Response

from api.admin import admin_schemas, response_schemas as responses
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from core.unsubscribe_requests import unsubscribe_requests_csv


@admin_blueprint.get("/services/<service_id>/unsubscribe-requests.csv")
@documented("The service's unsubscribe requests as CSV.", {200: responses.CSV}, media_type="text/csv",
            path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_unsubscribe_requests(service_id: str) -> Response:
    return Response(unsubscribe_requests_csv(service_id), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="unsubscribe-requests-{service_id}.csv"'})
