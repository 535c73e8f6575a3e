"""Per-file encryption: AES-256-GCM under a random key that only the download link carries.

Stored blob: version byte, 12-byte random nonce, ciphertext with its 16-byte tag. The file id is
the associated data, so a blob copied under another file's name does not decrypt.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

KEY_BYTES = 32  # 256 bits: the unguessable part of the link
_VERSION = b"\x01"
_NONCE_BYTES = 12
_KEY_TEXT = re.compile(r"[A-Za-z0-9_-]{43}")  # 32 bytes as unpadded base64url


class DecryptionFailed(Exception):
    """Wrong key, or the stored bytes were damaged."""


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def encrypt(key: bytes, data: bytes, associated: bytes) -> bytes:
    nonce = os.urandom(_NONCE_BYTES)
    return _VERSION + nonce + AESGCM(key).encrypt(nonce, data, associated)


def decrypt(key: bytes, blob: bytes, associated: bytes) -> bytes:
    if not blob.startswith(_VERSION) or len(blob) < 1 + _NONCE_BYTES + 16:
        raise DecryptionFailed("not an encrypted file")
    nonce, sealed = blob[1:1 + _NONCE_BYTES], blob[1 + _NONCE_BYTES:]
    try:
        return AESGCM(key).decrypt(nonce, sealed, associated)
    except InvalidTag:
        raise DecryptionFailed("wrong key or damaged file") from None


def key_to_text(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).rstrip(b"=").decode("ascii")


def key_from_text(text: str | None) -> bytes | None:
    """The key from a link's `key` parameter; None for anything that cannot be a key."""
    if not text or not _KEY_TEXT.fullmatch(text):
        return None
    return base64.urlsafe_b64decode(text + "=")


def key_digest(key: bytes) -> str:
    """Stored to tell a wrong key from the right one; a hash of 256 random bits reveals nothing."""
    return hashlib.sha256(b"notify-file-key:" + key).hexdigest()


def recipient_digest(key: bytes, address: str) -> str:
    """Keyed by the file key, so the stored digest cannot be checked against guessed addresses
    by someone who has the database but not the link."""
    return hmac.new(key, b"recipient:" + address.encode("utf-8"), hashlib.sha256).hexdigest()


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())
