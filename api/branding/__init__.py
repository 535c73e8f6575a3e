"""Email brand logos, public: recipients' mail clients load them from the address in the email."""
from __future__ import annotations

import re

from flask import Blueprint, Response, abort

from core.brands import find_brand
from models.appearance import EmailBrand
from pipeline.domain.errors import NoResultFound

branding_blueprint = Blueprint("branding", __name__)
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
YEAR_SECONDS = 365 * 24 * 3600


@branding_blueprint.get("/branding/email/<brand_id>/<digest>.png")
def email_logo(brand_id: str, digest: str) -> Response:
    # The address is the one logo_path made: a lowercase id, and the digest of the logo as it is now.
    if not _UUID.match(brand_id):
        abort(404)
    try:
        brand = find_brand(EmailBrand, brand_id)
    except NoResultFound:
        abort(404)
    if not brand.logo_png or brand.logo_digest != digest:
        abort(404)
    response = Response(bytes(brand.logo_png), mimetype="image/png")
    # The digest is in the address: a changed logo gets a new one, so this one may be kept a year.
    response.headers["Cache-Control"] = f"public, max-age={YEAR_SECONDS}, immutable"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    return response
