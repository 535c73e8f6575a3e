"""Password hashing with argon2id (argon2-cffi's defaults, RFC 9106's low-memory profile), and the
check every new password passes: long enough, and not one an attacker tries early.

The check is zxcvbn's: its list of 30,000 passwords most common in breaches (and of common words and
names) shipped with the package, with the variations attackers try on them (digits appended,
l33t, repeats, keyboard walks, the person's own name or address). Nothing leaves the machine."""
from __future__ import annotations

import re

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn import zxcvbn

_hasher = PasswordHasher()
MIN_LENGTH = 10
# zxcvbn's own bound: its matching grows with the square of the length. The first 72 characters of a
# longer password decide, as bcrypt's do.
CHECKED_LENGTH = 72
# zxcvbn's 3: over 10^8 guesses, "safely unguessable" behind a slow hash and rate-limited sign-ins.
MIN_SCORE = 3


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """True when the hash was made with weaker parameters than today's."""
    return _hasher.check_needs_rehash(password_hash)


def is_guessable(password: str, user_inputs: list[str] | None = None) -> bool:
    """True for a common or breached password, or one close to one or to the person's own details."""
    # zxcvbn matches each input as one word: "piet.jansen@example.nl" also as "piet", "jansen", ...
    words = {part for text in user_inputs or [] for part in [text, *re.split(r"[\W_]+", text)] if len(part) > 2}
    return zxcvbn(password[:CHECKED_LENGTH], user_inputs=sorted(words))["score"] < MIN_SCORE
