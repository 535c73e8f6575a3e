"""/openapi.json documents every route of the v2 API, the admin API and the webhooks with the very
schemas that validate them, and /docs shows it as a page that needs nothing from the network."""
from __future__ import annotations

import re

from api.admin import admin_schemas
from api.errors import ERROR_RESPONSE
from api.openapi import _plain
from api.v2.notifications.notification_schemas import get_notifications_query
from api.v2.notifications.post_schemas import post_sms_request, post_sms_response


def _document(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.content_type == "application/json"
    return response.get_json()


def test_every_api_route_is_documented(client, app):
    paths = _document(client)["paths"]
    for rule in app.url_map.iter_rules():
        if rule.endpoint.partition(".")[0] not in ("v2", "admin", "providers"):
            continue
        path = re.sub(r"<(?:\w+(?:\([^)]*\))?:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert method.lower() in paths.get(path, {}), f"{method} {path} is not in /openapi.json"


def test_operations_carry_the_schemas_their_routes_validate_with(client):
    document = _document(client)
    assert document["openapi"] == "3.1.0"
    sms = document["paths"]["/v2/notifications/sms"]["post"]
    assert sms["requestBody"]["content"]["application/json"]["schema"] == _plain(post_sms_request)
    assert sms["responses"]["201"]["content"]["application/json"]["schema"] == _plain(post_sms_response)
    assert sms["responses"]["4XX"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
    assert document["components"]["schemas"]["Error"] == ERROR_RESPONSE
    assert sms["security"] == [{"serviceKey": []}]

    listing = document["paths"]["/v2/notifications"]["get"]
    status = next(p for p in listing["parameters"] if p["name"] == "status")
    assert (status["in"], status["explode"], status["schema"]) == (
        "query", True, _plain(get_notifications_query["properties"]["status"]))

    patch = document["paths"]["/admin/services/{service_id}"]["patch"]
    assert patch["requestBody"]["content"]["application/json"]["schema"] == _plain(admin_schemas.update_service)
    assert patch["parameters"] == [{"name": "service_id", "in": "path", "required": True,
                                    "schema": {"type": "string", "format": "uuid"}}]
    assert patch["security"] == [{"adminClient": []}]
    receipts = document["paths"]["/providers/{provider}/delivery-receipts"]["post"]
    assert receipts["security"] == [{"providerToken": []}]


def test_the_document_needs_no_authentication(client):
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/docs").status_code == 200


def test_the_reference_page_lists_every_operation_without_loading_anything(client):
    document = _document(client)
    response = client.get("/docs")
    assert response.status_code == 200
    assert response.content_type.startswith("text/html")
    page = response.get_data(as_text=True)
    for path in document["paths"]:
        assert f"<code>{path}</code>" in page
    assert "Authorization: Bearer" in page
    assert "&#34;phone_number&#34;: {" in page  # the sms request schema, readable (HTML-escaped JSON)
    # The network is closed where this runs: no scripts, styles or fonts from elsewhere.
    assert "<script" not in page
    assert not re.search(r'(src|href)="https?://', page)
