"""The area's blueprint and what its views share: finding a template of the service, the refusals of
the template rules in the page's language."""
from __future__ import annotations

from flask import Blueprint
from flask_babel import gettext as _, lazy_gettext as _l
from flask_wtf import FlaskForm

from models.template_folder import folder_tree

bp = Blueprint("template_editor", __name__)
TOP_LEVEL = ""  # the folder choice that files a template at the service's top level

# The folder rules' refusals (core.template_folders) worded for the page; the others are translated
# by console.services.refusals.
REFUSALS = {
    "Only an empty folder can be deleted":
        _l("Only an empty folder can be deleted: move its templates and folders out first"),
    "Choose at least one template to move": _l("Choose at least one template to move"),
}


def refusals_in_words(form: FlaskForm) -> None:
    form.form_errors[:] = [str(REFUSALS.get(message, message)) for message in form.form_errors]


def folder_choices(service_id: object) -> list[tuple[str, str]]:
    """The top level, then every folder indented by its depth (a select cannot nest)."""
    return [(TOP_LEVEL, _("Templates (top level)"))] + [
        (str(folder.id), "\u2003" * (depth + 1) + folder.name) for folder, depth in folder_tree(service_id)]
