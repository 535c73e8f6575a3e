"""The bearer tokens the API accepts, made as the official clients make them: a JWT naming its issuer
(a service id, or the admin client id) and when it was issued, signed HS256 with the issuer's secret."""
from __future__ import annotations

import time
import uuid

import jwt


def create_token(issuer: str, secret: str, *, unique: bool = False) -> str:
    """A token for issuer, valid while its iat is within the API's clock tolerance (the CLI's admin
    token, tests and benchmarks). The clients' tokens repeat within a second; unique adds a jti of
    its own, for a benchmark or test that must send a token no request has sent before."""
    claims: dict[str, object] = {"iss": issuer, "iat": int(time.time())}
    if unique:
        claims["jti"] = uuid.uuid4().hex
    return jwt.encode(claims, secret, algorithm="HS256", headers={"typ": "JWT"})
