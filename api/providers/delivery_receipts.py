"""Delivery receipts posted by providers (and by the simulated provider, the same way).

The body is one receipt, or a JSON array of receipts from a gateway that reports in batches (as
our simulated gateway does under load).
"""
from __future__ import annotations

from flask import Response, jsonify

from api.openapi import documented
from api.providers.blueprint import providers_blueprint
from api.request_body import json_body
from api.schema import validate
from pipeline.infrastructure.providers.sms.receipts import RECEIPT_SCHEMA
from workers.receipts import apply_posted_receipts

MAX_BATCH = 1000
success_response = {"type": "object", "required": ["result"], "properties": {"result": {"const": "success"}}}
# A thousand receipts take about 150 kB; the cap refuses anything far larger before it is read.
MAX_BODY_BYTES = 1_000_000
batch_schema = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "array",
    "items": RECEIPT_SCHEMA,
    "minItems": 1,
    "maxItems": MAX_BATCH,
}


@providers_blueprint.post("/<provider>/delivery-receipts")
@documented("A provider's delivery receipt, or an array of them.", {200: success_response},
            body={"anyOf": [RECEIPT_SCHEMA, batch_schema]})
def delivery_receipt(provider: str) -> tuple[Response, int]:
    body = json_body(max_bytes=MAX_BODY_BYTES, max_items=MAX_BATCH)
    receipts = validate(batch_schema, body) if isinstance(body, list) else [validate(RECEIPT_SCHEMA, body)]
    # Answered once they are in the database: the gateway posts again only what we refuse.
    apply_posted_receipts(provider, receipts)
    return jsonify({"result": "success"}), 200
