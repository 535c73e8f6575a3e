"""Uploaded logos: what we store is a PNG we encoded ourselves, or the upload is refused."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from pipeline.domain.branding.logos import LogoError, process_logo

SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="200" height="60">'
       b'<rect width="60" height="60" fill="#154273"/><text x="70" y="40" font-size="24">Gemeente</text></svg>')


def png(width: int = 120, height: int = 40, colour=(21, 66, 115, 255), mode: str = "RGBA") -> bytes:
    out = io.BytesIO()
    Image.new(mode, (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def test_png_is_encoded_again_without_anything_appended():
    logo = process_logo(png() + b"<script>alert(1)</script>")
    assert logo.png.startswith(b"\x89PNG") and b"script" not in logo.png
    assert (logo.width, logo.height) == (120, 40)


def test_transparent_margins_are_cropped_and_large_logos_scaled_down():
    image = Image.new("RGBA", (3000, 1000), (0, 0, 0, 0))
    image.paste((200, 0, 0, 255), (500, 100, 2500, 900))
    out = io.BytesIO()
    image.save(out, format="PNG")
    logo = process_logo(out.getvalue())
    assert (logo.width, logo.height) == (750, 300)


def test_svg_is_rasterised_to_png():
    logo = process_logo(SVG)
    assert logo.png.startswith(b"\x89PNG") and logo.height == 300
    with Image.open(io.BytesIO(logo.png)) as image:
        assert image.getpixel((10, 150))[:3] == (21, 66, 115)  # the blue square, drawn


@pytest.mark.parametrize("data, message", [
    (b"", "logo is empty"),
    (b"GIF89a" + b"\x00" * 20, "logo must be a PNG or SVG image"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "logo is not a readable PNG image"),
    (png(40, 10), "logo must be at least 20 pixels high"),
    (png(colour=(0, 0, 0, 0)), "logo is blank"),
    (b"x" * (1024 * 1024 + 1), "logo is larger than 1024 KB"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "SVG logo must not contain <script>"),
    (b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>',
     "SVG logo must not contain event handlers"),
    (b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
     b'<image xlink:href="file:///etc/passwd" width="9" height="9"/></svg>',
     "SVG logo must not load anything from outside the file"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><style>rect { fill: url(https://x.example/a.svg) }</style></svg>',
     "SVG logo must not load anything from outside the file"),
    (b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>',
     "SVG logo must not declare a DOCTYPE or entities"),
    (b'<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><p>hi</p></foreignObject></svg>',
     "SVG logo must not contain <foreignObject>"),
    (b"<svg xmlns='http://www.w3.org/2000/svg'><rect", "SVG logo is not well-formed XML"),
])
def test_refused_uploads_say_why(data, message):
    with pytest.raises(LogoError) as refused:
        process_logo(data)
    assert str(refused.value) == message
