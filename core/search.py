"""The platform admin's search: users and services by name, email address or id."""
from __future__ import annotations

import uuid
from dataclasses import dataclass

import peewee

from models.service import Service
from models.user import User

MOST = 50  # of each kind: a search that finds more is narrowed, not paged


@dataclass(frozen=True)
class Found:
    users: list[User]
    services: list[Service]


def search(words: str) -> Found:
    """Users whose name or email address contains the words, services whose name does, and either whose
    id they are (case does not matter); nothing for blank words."""
    text = words.strip().lower()
    if not text:
        return Found([], [])
    user_matches = peewee.fn.LOWER(User.name).contains(text) | peewee.fn.LOWER(User.email_address).contains(text)
    service_matches = peewee.fn.LOWER(Service.name).contains(text)
    try:
        exact = uuid.UUID(text)
    except ValueError:
        exact = None
    if exact is not None:
        user_matches |= User.id == exact
        service_matches |= Service.id == exact
    users = User.select().where(user_matches).order_by(User.name, User.email_address).limit(MOST)
    services = Service.select().where(service_matches).order_by(Service.name).limit(MOST)
    return Found(list(users), list(services))
