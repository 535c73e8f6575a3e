"""The example templates a service made in the console starts with: one per channel, in the language of
the person making it, so a first text can be sent at once and each channel's placeholders are seen in use.
They are ordinary templates (core.templates.add_template, through core.services.create_service): the
team changes or deletes them as any other."""
from __future__ import annotations

from typing import Any

from flask_babel import gettext as _


def example_templates(created_by: str) -> list[dict[str, Any]]:
    """add_template's arguments for each example, in the page's language."""
    closing = _("This is an example: change this template or delete it under Templates.")
    return [
        {"template_type": "sms", "name": _("Example text message"), "created_by": created_by,
         "body": _("Hello ((name)), this is a test text message. Change its words under Templates.")},
        {"template_type": "email", "name": _("Example email"), "created_by": created_by,
         "subject": _("Your appointment on ((date))"),
         "body": _("Hello ((name)),\n\nYour appointment is on ((date)).\n\n%(closing)s", closing=closing)},
        {"template_type": "letter", "name": _("Example letter"), "created_by": created_by,
         "subject": _("Your appointment on ((date))"),
         "body": _("Dear ((name)),\n\nYour appointment is on ((date)). Please bring this letter with you.\n\n"
                   "%(closing)s", closing=closing)},
    ]
