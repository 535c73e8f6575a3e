"""The area's blueprint and what its views share: finding a template of the service, the refusals of
the folder rules in the page's language."""
from __future__ import annotations

from flask import Blueprint
from flask_babel import gettext as _, lazy_gettext as _l

from console.services.refusals import Words, fixed, in_words, translated
from models.template_folder import folder_tree

bp = Blueprint("template_editor", __name__)
TOP_LEVEL = ""  # the folder choice that files a template at the service's top level

# The folder rules' refusals (core.template_folders) worded for the page; the others as the service
# pages word them.
WORDS: dict[str, Words] = {
    "folder_not_empty": fixed(_l("Only an empty folder can be deleted: move its templates and folders out first")),
    "no_templates_chosen": fixed(_l("Choose at least one template to move")),
}


def folder_refusal(message: str) -> str:
    return in_words(message, WORDS) or translated(message)

def folder_choices(service_id: object) -> list[tuple[str, str]]:
    """The top level, then every folder indented by its depth (a select cannot nest)."""
    return [(TOP_LEVEL, _("Templates (top level)"))] + [
        (str(folder.id), "\u2003" * (depth + 1) + folder.name) for folder, depth in folder_tree(service_id)]
