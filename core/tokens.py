"""The bearer tokens the API accepts, made as the official clients make them: a JWT naming its issuer
(a service id, or the admin client id) and when it was issued, signed HS256 with the issuer's secret."""
from __future__ import annotations

import time

import jwt


def create_token(issuer: str, secret: str) -> str:
    """A token for issuer, valid while its iat is within the API's clock tolerance (the CLI's admin
    token, tests and benchmarks)."""
    return jwt.encode({"iss": issuer, "iat": int(time.time())}, secret, algorithm="HS256", headers={"typ": "JWT"})
