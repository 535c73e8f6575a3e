"""Secrets at rest (API key secrets, callback tokens, rendered content) are encrypted with a key from
configuration, so a database dump alone does not reveal them.

Values are AES-256-GCM with a random 96-bit nonce, written `v2:<base64url(nonce + ciphertext)>`:
one call into the cipher, where Fernet (AES-CBC, HMAC and their objects made anew per value) cost a
few per cent of every accepted send, which encrypts two. Fernet tokens written before still decrypt.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from config import get_settings

# What decrypting a value this key did not seal (or a damaged one) raises: a bad row, not a bug.
UNREADABLE = (InvalidTag, InvalidToken, ValueError)

PREFIX = "v2:"
NONCE_BYTES = 12


@functools.lru_cache(maxsize=4)
def _aesgcm(secret_key: str) -> AESGCM:
    # A key of its own, derived apart from Fernet's: one key is never used by two ciphers.
    return AESGCM(hashlib.sha256(b"notify at rest v2\0" + secret_key.encode()).digest())


@functools.lru_cache(maxsize=4)
def _fernet(secret_key: str) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(secret_key.encode()).digest()))


def encrypt(plain: str) -> str:
    nonce = os.urandom(NONCE_BYTES)
    sealed = _aesgcm(get_settings().secret_key).encrypt(nonce, plain.encode(), None)
    return PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode()


def decrypt(token: str) -> str:
    """Raises cryptography's InvalidTag (or Fernet's InvalidToken) for a value this key did not seal."""
    secret_key = get_settings().secret_key
    if token.startswith(PREFIX):
        raw = base64.urlsafe_b64decode(token[len(PREFIX):])
        return _aesgcm(secret_key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], None).decode()
    return _fernet(secret_key).decrypt(token.encode()).decode()
