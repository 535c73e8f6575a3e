"""A service's templates: the list in folders, create (email, text message or letter), edit (each save
is a new version), copy, delete (archive), earlier versions and the differences between two.

Changes go through the rules floor (core.templates, core.template_folders), so the rules and the
service's history are the same as for the admin API and the CLI.
"""
from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from console.acting import perform
from console.auth import current_permissions, current_service, current_user, service_permission_required
from console.found import template_or_404
from console.template_editor import (
    folders as _folders,  # noqa: F401  (its routes join bp)
    live_preview as _live,  # noqa: F401  (its routes join bp)
)
from console.template_editor.blueprint import (
    TOP_LEVEL,
    bp,
    folder_choices,
    folder_refusal,
)
from console.template_editor.diff import compare as compare_versions
from console.template_editor.forms import (
    POSTAGE_LABELS,
    TYPE_LABELS,
    ChooseTypeForm,
    ConfirmForm,
    MoveForm,
    TemplateForm,
)
from console.template_editor.preview import make_preview
from core.template_folders import move_templates
from core.templates import (
    DEFAULT_POSTAGE,
    add_template,
    all_versions,
    archive_template,
    change_template,
    current_versions,
)
from models.db import database
from models.service import LetterContact
from models.template import TemplateVersion
from models.template_folder import folder_tree


def _contact_choices(service_id: object) -> list[tuple[str, str]]:
    contacts = LetterContact.select().where(LetterContact.service == service_id).order_by(LetterContact.created_at)
    return [("", _("The service's default contact block"))] + [
        (str(c.id), ", ".join(c.contact_block.splitlines())) for c in contacts]


def _tree(service_id: str) -> tuple[list[TemplateVersion], list[dict[str, Any]]]:
    """The top level's templates, and the folders as a nested tree, each with its own templates."""
    by_folder: dict[object, list[TemplateVersion]] = {}
    for version in current_versions(service_id, by_name=True):
        by_folder.setdefault(version.template.folder_id, []).append(version)
    nodes: dict[object, dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    for folder, _depth in folder_tree(service_id):
        node = {"folder": folder, "templates": by_folder.get(folder.id, []), "children": []}
        nodes[folder.id] = node
        (nodes[folder.parent_id]["children"] if folder.parent_id in nodes else roots).append(node)
    return by_folder.get(None, []), roots


@bp.get("/services/<service_id>/templates")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    top, folders = _tree(service_id)
    form = MoveForm()
    form.folder.choices = folder_choices(service_id)
    return render_template("template_editor/index.html", service=current_service(), top=top, folders=folders,
                           form=form, can_manage="manage_templates" in current_permissions(), types=TYPE_LABELS)


@bp.post("/services/<service_id>/templates/move")
@service_permission_required("manage_templates")
def move(service_id: str) -> Any:
    form = MoveForm()
    form.folder.choices = folder_choices(service_id)
    if form.validate_on_submit():
        done, moved = perform(lambda: move_templates(service_id, form.template_ids.data, form.folder.data or None),
                              form, translate=folder_refusal)
        if done:
            flash(_("Templates moved: %(count)s", count=moved), "ok")
            return redirect(url_for("template_editor.index", service_id=service_id))
    top, folders = _tree(service_id)
    return render_template("template_editor/index.html", service=current_service(), top=top, folders=folders,
                           form=form, can_manage=True, types=TYPE_LABELS), 400


@bp.route("/services/<service_id>/templates/new", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def choose_type(service_id: str) -> Any:
    form = ChooseTypeForm()
    if form.validate_on_submit():
        return redirect(url_for("template_editor.create", service_id=service_id, template_type=form.template_type.data,
                                folder=request.args.get("folder") or None))
    return render_template("template_editor/choose_type.html", service=current_service(), form=form)


def _form(template_type: str, *, creating: bool, data: dict[str, Any] | None = None) -> TemplateForm:
    form = TemplateForm(data=data).for_type(template_type)
    service_id = current_service().id
    if template_type == "letter":
        form.letter_contact.choices = _contact_choices(service_id)
    if creating:
        form.folder.choices = folder_choices(service_id)
    else:
        del form.folder
    return form


def _content(form: TemplateForm, template_type: str) -> dict[str, Any]:
    data: dict[str, Any] = {"name": form.name.data.strip(), "body": form.body.data}
    if template_type != "sms":
        data["subject"] = form.subject.data.strip()
    if template_type == "letter":
        data["postage"] = form.postage.data
        data["letter_contact_id"] = form.letter_contact.data or None
    return data


def _editor_page(form: TemplateForm, template_type: str, *, heading: str,
                 version: TemplateVersion | None = None) -> Any:
    contact = None
    if template_type == "letter" and form.letter_contact.data:
        contact = LetterContact.get_or_none((LetterContact.id == form.letter_contact.data)
                                            & (LetterContact.service == current_service()))
    preview = make_preview(current_service(), template_type, subject=form.subject.data if "subject" in form else None,
                           body=form.body.data or "", letter_contact=contact)
    return render_template("template_editor/edit.html", service=current_service(), form=form, heading=heading,
                           template_type=template_type, version=version, preview=preview)


def _previewing() -> bool:
    return request.method == "POST" and request.form.get("action") == "preview"


def _create(service_id: str, template_type: str, form: TemplateForm) -> Any:
    def save() -> TemplateVersion:
        with database.atomic():
            created = add_template(service_id, template_type=template_type, created_by=current_user().name,
                                   **_content(form, template_type))
            if form.folder.data:
                move_templates(service_id, [str(created.template.id)], form.folder.data)
        return created

    done, created = perform(save, form)
    if done:
        flash(_("Template saved"), "ok")
        return redirect(url_for("template_editor.show", service_id=service_id, template_id=created.template.id))
    return None


@bp.route("/services/<service_id>/templates/new/<template_type>", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def create(service_id: str, template_type: str) -> Any:
    if template_type not in TYPE_LABELS:
        abort(404)
    form = _form(template_type, creating=True, data={"folder": request.args.get("folder", TOP_LEVEL)})
    if not _previewing() and form.validate_on_submit():
        saved = _create(service_id, template_type, form)
        if saved is not None:
            return saved
    return _editor_page(form, template_type, heading=_("New template: %(kind)s", kind=TYPE_LABELS[template_type]))


@bp.route("/services/<service_id>/templates/<template_id>/copy", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def copy(service_id: str, template_id: str) -> Any:
    original = template_or_404(template_id)
    template_type = original.template.template_type
    form = _form(template_type, creating=True, data={
        **_content_of(original), "name": _("Copy of %(name)s", name=original.name),
        "folder": str(original.template.folder_id) if original.template.folder_id else TOP_LEVEL})
    if not _previewing() and form.validate_on_submit():
        saved = _create(service_id, template_type, form)
        if saved is not None:
            return saved
    return _editor_page(form, template_type, heading=_("Copy of %(name)s", name=original.name))


def _content_of(version: TemplateVersion) -> dict[str, str]:
    """The editor's fields filled from a saved version."""
    return {"name": version.name, "subject": version.subject, "body": version.body,
            "postage": version.postage or DEFAULT_POSTAGE,
            "letter_contact": str(version.letter_contact_id) if version.letter_contact_id else ""}


@bp.get("/services/<service_id>/templates/<template_id>")
@service_permission_required("view_activity")
def show(service_id: str, template_id: str) -> Any:
    version = template_or_404(template_id)
    return _version_page(version, latest=True)


def _version_page(version: TemplateVersion, *, latest: bool) -> Any:
    kind = version.template.template_type
    preview = make_preview(current_service(), kind, subject=version.subject, body=version.body,
                           letter_contact=version.letter_contact if version.letter_contact_id else None)
    return render_template("template_editor/show.html", service=current_service(), version=version, latest=latest,
                           preview=preview, types=TYPE_LABELS, postages=POSTAGE_LABELS,
                           can_manage="manage_templates" in current_permissions())


@bp.route("/services/<service_id>/templates/<template_id>/edit", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def edit(service_id: str, template_id: str) -> Any:
    latest = template_or_404(template_id)
    template_type = latest.template.template_type
    form = _form(template_type, creating=False, data=_content_of(latest))
    if not _previewing() and form.validate_on_submit():
        done, _saved = perform(lambda: change_template(service_id, template_id, created_by=current_user().name,
                                                       **_content(form, template_type)), form)
        if done:
            flash(_("Template saved"), "ok")
            return redirect(url_for("template_editor.show", service_id=service_id, template_id=template_id))
    return _editor_page(form, template_type, heading=_("Edit %(name)s", name=latest.name), version=latest)


@bp.route("/services/<service_id>/templates/<template_id>/delete", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def archive(service_id: str, template_id: str) -> Any:
    latest = template_or_404(template_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        done, _none = perform(lambda: archive_template(service_id, template_id), form)
        if done:
            flash(_("Template deleted: %(name)s", name=latest.name), "ok")
            return redirect(url_for("template_editor.index", service_id=service_id))
    return render_template("template_editor/archive.html", service=current_service(), version=latest, form=form)


@bp.get("/services/<service_id>/templates/<template_id>/versions")
@service_permission_required("view_activity")
def versions(service_id: str, template_id: str) -> Any:
    latest = template_or_404(template_id)
    rows = all_versions(latest.template)[::-1]
    return render_template("template_editor/versions.html", service=current_service(), latest=latest, rows=rows)


@bp.get("/services/<service_id>/templates/<template_id>/versions/<int:number>")
@service_permission_required("view_activity")
def version(service_id: str, template_id: str, number: int) -> Any:
    latest = template_or_404(template_id)
    return _version_page(template_or_404(template_id, number), latest=number == latest.version)


@bp.get("/services/<service_id>/templates/<template_id>/compare")
@service_permission_required("view_activity")
def compare(service_id: str, template_id: str) -> Any:
    numbers = [request.args.get(name, type=int) for name in ("from", "to")]
    if None in numbers:
        abort(404)
    old, new = (template_or_404(template_id, number) for number in sorted(numbers))
    return render_template("template_editor/compare.html", service=current_service(), old=old, new=new,
                           changes=compare_versions(old, new))
