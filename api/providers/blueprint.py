"""The blueprint of the webhooks providers call, authenticated with one shared token.

Providers cannot make our JWTs, so they send `Authorization: Bearer <PROVIDER_WEBHOOK_TOKEN>`.
"""
from __future__ import annotations

import hmac

from flask import Blueprint, request

from api.auth import bearer_token
from api.errors import AuthError
from config import get_settings

providers_blueprint = Blueprint("providers", __name__, url_prefix="/providers")


@providers_blueprint.before_request
def _authenticate() -> None:
    # The same 401 answers as the v2 API for a missing header or another scheme.
    token = bearer_token(request.headers.get("Authorization"))
    expected = get_settings().provider_webhook_token
    # Constant-time comparison, so response timing does not reveal how much of a guess was right.
    if not hmac.compare_digest(token.encode(), expected.encode()):
        raise AuthError("Invalid token: provider token not valid")
