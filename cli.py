"""Operator commands: `flask --app app <command>`, each printing JSON."""
from __future__ import annotations

from flask import Flask


def register_cli(app: Flask) -> None:
    pass
