"""SMS providers: a JSON-over-HTTP gateway, and the mapping of its delivery receipts to our statuses."""
from pipeline.infrastructure.providers.sms.http_gateway import HttpSmsGateway
from pipeline.infrastructure.providers.sms.receipts import RECEIPT_SCHEMA, map_gateway_state

__all__ = ["HttpSmsGateway", "RECEIPT_SCHEMA", "map_gateway_state"]
