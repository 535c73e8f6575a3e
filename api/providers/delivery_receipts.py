"""Delivery receipts posted by providers (and by the simulated provider, the same way)."""
from __future__ import annotations

from flask import Response, jsonify

from api.providers import providers_blueprint
from api.request_body import json_body
from api.schema import validate
from workers.receipts import process_receipt

receipt_schema = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "reference": {"type": ["string", "null"]},
        "status": {"type": "string"},
        "timestamp": {"type": ["string", "null"]},
    },
    "required": ["id", "status"],
}


@providers_blueprint.post("/<provider>/delivery-receipts")
def delivery_receipt(provider: str) -> tuple[Response, int]:
    receipt = validate(receipt_schema, json_body())
    # Answer fast and let the receipts queue apply it: a gateway retries slow or failed webhooks.
    process_receipt.send(provider, receipt)
    return jsonify({"result": "success"}), 200
