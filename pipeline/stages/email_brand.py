"""A stored email brand as the email layout shows it, with the public address of its logo (BASE_URL):
the stages floor, where a brand row and the settings may be read, hands the pure layout a view."""
from __future__ import annotations

from config import get_settings
from models.appearance import EmailBrand
from pipeline.domain.rendering.layout import EmailBrandView, logo_display_size


def logo_path(brand: EmailBrand) -> str:
    """Public path of the logo; the digest changes with the logo, so caches never show an old one."""
    return f"/branding/email/{brand.id}/{brand.logo_digest}.png"


def brand_view(brand: EmailBrand | None) -> EmailBrandView | None:
    if brand is None:
        return None
    width, height = 0, 0
    if brand.logo_png:
        assert brand.logo_width is not None and brand.logo_height is not None  # stored with the logo
        width, height = logo_display_size(brand.logo_width, brand.logo_height)
    return EmailBrandView(
        name=brand.name, colour=brand.colour,
        logo_url=f"{get_settings().base_url}{logo_path(brand)}" if brand.logo_png else None,
        logo_width=width, logo_height=height, beside_service_name=brand.brand_type == "both",
    )
