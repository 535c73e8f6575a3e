"""Values encrypted at rest: sealed with AES-GCM under SECRET_KEY, and values Fernet sealed before
still readable, so upgrading needs no re-encryption."""
from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet

from config import get_settings
from models import crypto


def test_a_value_comes_back_and_is_never_stored_as_it_was():
    sealed = crypto.encrypt("Your code is 123456 — één")
    assert sealed.startswith("v2:") and "123456" not in sealed
    assert crypto.decrypt(sealed) == "Your code is 123456 — één"
    assert crypto.encrypt("same") != crypto.encrypt("same")  # a fresh nonce each time


def test_values_sealed_with_fernet_before_still_decrypt():
    key = base64.urlsafe_b64encode(hashlib.sha256(get_settings().secret_key.encode()).digest())
    legacy = Fernet(key).encrypt(b"an older secret").decode()
    assert crypto.decrypt(legacy) == "an older secret"


def test_a_tampered_value_is_refused():
    sealed = crypto.encrypt("secret")
    raw = bytearray(base64.urlsafe_b64decode(sealed[3:]))
    raw[-1] ^= 1
    with pytest.raises(InvalidTag):
        crypto.decrypt("v2:" + base64.urlsafe_b64encode(bytes(raw)).decode())
