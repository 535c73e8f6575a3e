"""Uploaded logos (PNG or SVG) turned into a PNG we made ourselves, or refused.

Nothing uploaded is kept or served as it came: a PNG is decoded by Pillow (decompression-bomb
checks on) and encoded again, which drops metadata, text chunks and anything appended to the file;
an SVG is first checked against a short list of what a logo needs (no scripts, event handlers,
foreign content, entities or references outside the file), then rasterised by resvg, which runs no
script and fetches nothing. Email clients differ in SVG support anyway, and print needs pixels.
"""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import resvg_py
from PIL import Image, UnidentifiedImageError

MAX_UPLOAD_BYTES = 1024 * 1024
MAX_SOURCE_PIXELS = 4096 * 4096  # a bigger canvas is refused, not decoded
MIN_HEIGHT = 20  # pixels: anything smaller is unreadable in an email header or on paper
# Kept at a size that prints sharply at the letter logo's 23 mm height (about 300 dpi) and is
# still small in an email (it is shown there at 60 px high at most).
STORED_MAX_WIDTH, STORED_MAX_HEIGHT = 1200, 300
SVG_RENDER_HEIGHT = STORED_MAX_HEIGHT

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SVG_START = re.compile(rb"^\s*(<.*?)?<svg[\s>]", re.DOTALL)  # markup with an <svg> element early on
_FONTS = [str(Path(__file__).resolve().parents[1] / "letters" / "fonts" / "DejaVuSans.ttf")]
_FORBIDDEN_ELEMENTS = {"script", "foreignObject", "iframe", "embed", "object", "audio", "video", "handler"}
_HREF_NAMES = {"href", "{http://www.w3.org/1999/xlink}href"}
_LOCAL_REF = re.compile(r"^(#|data:image/(png|jpeg|gif);base64,)", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(\s*['\"]?(?!#)|@import|expression\(", re.IGNORECASE)


class LogoError(ValueError):
    """The upload is not a logo we accept; the message says why, for the admin API's error."""


@dataclass(frozen=True)
class Logo:
    png: bytes
    width: int
    height: int


def process_logo(data: bytes) -> Logo:
    if not data:
        raise LogoError("logo is empty")
    if len(data) > MAX_UPLOAD_BYTES:
        raise LogoError(f"logo is larger than {MAX_UPLOAD_BYTES // 1024} KB")
    if data.startswith(_PNG_SIGNATURE):
        return _from_image(data)
    if _SVG_START.match(data[:4096]):
        return _from_image(_rasterise(data))
    raise LogoError("logo must be a PNG or SVG image")


def _from_image(data: bytes) -> Logo:
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.format != "PNG":
                raise LogoError("logo must be a PNG or SVG image")
            if image.width * image.height > MAX_SOURCE_PIXELS:
                raise LogoError("logo is more than 4096 x 4096 pixels")
            image.load()
            converted = image.convert("RGBA")
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError) as error:
        raise LogoError("logo is not a readable PNG image") from error
    box = converted.getbbox()  # transparent margins would push the visible logo out of its zone
    if box is None:
        raise LogoError("logo is blank")
    converted = converted.crop(box)
    if converted.height < MIN_HEIGHT:
        raise LogoError(f"logo must be at least {MIN_HEIGHT} pixels high")
    converted.thumbnail((STORED_MAX_WIDTH, STORED_MAX_HEIGHT), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    converted.save(out, format="PNG", optimize=True)
    return Logo(png=out.getvalue(), width=converted.width, height=converted.height)


def check_svg(data: bytes) -> str:
    """The SVG text when it holds only what a logo needs; LogoError otherwise."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise LogoError("SVG logo must be UTF-8 text") from error
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise LogoError("SVG logo must not declare a DOCTYPE or entities")
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise LogoError("SVG logo is not well-formed XML") from error
    for element in root.iter():
        name = element.tag.rsplit("}", 1)[-1]
        if name in _FORBIDDEN_ELEMENTS:
            raise LogoError(f"SVG logo must not contain <{name}>")
        if name == "style" and _CSS_URL.search(element.text or ""):
            raise LogoError("SVG logo must not load anything from outside the file")
        for attribute, value in element.attrib.items():
            local = attribute.rsplit("}", 1)[-1]
            if local.lower().startswith("on"):
                raise LogoError("SVG logo must not contain event handlers")
            if attribute in _HREF_NAMES and not _LOCAL_REF.match(value.strip()):
                raise LogoError("SVG logo must not load anything from outside the file")
            if local == "style" and _CSS_URL.search(value):
                raise LogoError("SVG logo must not load anything from outside the file")
    return text


def _rasterise(data: bytes) -> bytes:
    text = check_svg(data)
    try:
        return bytes(resvg_py.svg_to_bytes(svg_string=text, height=SVG_RENDER_HEIGHT, skip_system_fonts=True,
                                           font_files=_FONTS, font_family="DejaVu Sans"))
    except ValueError as error:
        raise LogoError("SVG logo could not be drawn") from error
