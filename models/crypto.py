"""Secrets at rest (API key secrets, callback tokens) are encrypted with a key from configuration,
so a database dump alone does not reveal usable credentials."""
from __future__ import annotations

import base64
import functools
import hashlib

from cryptography.fernet import Fernet

from config import get_settings


@functools.lru_cache(maxsize=4)
def _fernet(secret_key: str) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(secret_key.encode()).digest()))


def encrypt(plain: str) -> str:
    return _fernet(get_settings().secret_key).encrypt(plain.encode()).decode()


def decrypt(token: str) -> str:
    return _fernet(get_settings().secret_key).decrypt(token.encode()).decode()
