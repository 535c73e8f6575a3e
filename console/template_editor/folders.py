"""Folders of the template list: make one (inside another, or at the top), rename one, delete an empty one."""
from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from console.acting import perform
from console.auth import current_service, service_permission_required
from console.template_editor.blueprint import TOP_LEVEL, bp, folder_choices, folder_refusal
from console.template_editor.forms import ConfirmForm, FolderForm
from core.template_folders import add_folder, delete_folder, find_folder, rename_folder
from models.template_folder import TemplateFolder
from pipeline.domain.errors import NoResultFound


def _folder_or_404(folder_id: str) -> TemplateFolder:
    try:
        return find_folder(current_service(), folder_id)
    except NoResultFound:
        abort(404)


def _to_list() -> Any:
    return redirect(url_for("template_editor.index", service_id=current_service().id))


@bp.route("/services/<service_id>/templates/folders/new", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def new_folder(service_id: str) -> Any:
    form = FolderForm(data={"parent": request.args.get("parent", TOP_LEVEL)})
    form.parent.choices = folder_choices(service_id)
    if form.validate_on_submit():
        done, _made = perform(lambda: add_folder(service_id, name=form.name.data, parent_id=form.parent.data or None),
                              form)
        if done:
            flash(_("Folder made: %(name)s", name=form.name.data.strip()), "ok")
            return _to_list()
    return render_template("template_editor/folder_new.html", service=current_service(), form=form)


@bp.route("/services/<service_id>/templates/folders/<folder_id>", methods=["GET", "POST"])
@service_permission_required("manage_templates")
def folder(service_id: str, folder_id: str) -> Any:
    """Rename the folder; the same page offers to delete it."""
    found = _folder_or_404(folder_id)
    form = _rename_form(found)
    if form.validate_on_submit():
        done, _renamed = perform(lambda: rename_folder(service_id, folder_id, name=form.name.data), form)
        if done:
            flash(_("Folder renamed: %(name)s", name=form.name.data.strip()), "ok")
            return _to_list()
    return _folder_page(found, form, ConfirmForm())


@bp.post("/services/<service_id>/templates/folders/<folder_id>/delete")
@service_permission_required("manage_templates")
def delete(service_id: str, folder_id: str) -> Any:
    found = _folder_or_404(folder_id)
    delete_form = ConfirmForm()
    if delete_form.validate_on_submit():
        done, _none = perform(lambda: delete_folder(service_id, folder_id), delete_form,
                              translate=folder_refusal)
        if done:
            flash(_("Folder deleted: %(name)s", name=found.name), "ok")
            return _to_list()
    return _folder_page(found, _rename_form(found), delete_form), 400


def _rename_form(found: TemplateFolder) -> FolderForm:
    form = FolderForm(data={"name": found.name})
    del form.parent  # the folder page renames; moving a folder is not offered
    return form


def _folder_page(found: TemplateFolder, form: FolderForm, delete_form: ConfirmForm) -> str:
    return render_template("template_editor/folder.html", service=current_service(), folder=found, form=form,
                           delete_form=delete_form)
