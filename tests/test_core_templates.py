"""The rules floor's template, folder, brand and appearance operations, called as the console and
the CLI call them: plain values in, models out, refusals in the admin API's words."""
from __future__ import annotations

import subprocess
import sys
import uuid

import pytest

from core import appearance, brands, template_folders, templates
from models.appearance import EmailBrand, LetterBrand
from models.audit import AuditEvent
from models.template import Template
from pipeline.domain.errors import BadRequestError, NoResultFound, ValidationError
from tests.pipeline.test_logos import SVG, png


def _refusal(error: pytest.ExceptionInfo) -> list[str]:
    return error.value.messages


def test_the_floor_imports_neither_flask_nor_a_door():
    code = ("import sys, core.templates, core.template_folders, core.appearance, core.brands; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'api', 'console', 'cli')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_a_template_is_made_changed_and_archived_with_its_history(service):
    made = templates.add_template(str(service.id), template_type="email", name="Hi", subject="Hi", body="Dear ((name))",
                                  created_by="Ann")
    assert (made.version, made.created_by, made.template.template_type) == (1, "Ann", "email")
    template_id = str(made.template.id)
    assert templates.change_template(str(service.id), template_id, created_by="Bob", name="Hi") == made
    changed = templates.change_template(str(service.id), template_id, created_by="Bob", body="Hello ((name))")
    assert (changed.version, changed.body, changed.created_by) == (2, "Hello ((name))", "Bob")
    assert [v.version for v in templates.all_versions(changed.template)] == [1, 2]
    templates.archive_template(str(service.id), template_id)
    with pytest.raises(NoResultFound):
        templates.find_template(service, template_id)
    assert [e.action for e in AuditEvent.select().order_by(AuditEvent.created_at)] == [
        "template.create", "template.update", "template.archive"]


def test_template_rules_refuse_in_the_admin_apis_words(service):
    with pytest.raises(ValidationError) as refused:
        templates.add_template(str(service.id), template_type="sms", name="n", body="b", subject="s", postage="first")
    assert _refusal(refused) == ["subject is not allowed for sms templates",
                                 "postage is only allowed for letter templates"]
    with pytest.raises(ValidationError) as refused:
        templates.add_template(str(service.id), template_type="letter", name="n", body="b", subject="s",
                               letter_languages="dutch_then_english")
    assert _refusal(refused) == ["letter_english_subject is required for dutch_then_english letters",
                                 "letter_english_body is required for dutch_then_english letters"]
    with pytest.raises(ValidationError) as refused:
        templates.add_template(str(service.id), template_type="letter", name="n", body="b", subject="s",
                               letter_contact_id=str(uuid.uuid4()))
    assert _refusal(refused) == ["letter_contact_id is not a letter contact of this service"]
    with pytest.raises(TypeError):
        templates.change_template(str(service.id), str(uuid.uuid4()), colour="#000000")


def test_a_malformed_or_foreign_id_is_not_found(service):
    for template_id in ("nope", str(uuid.uuid4())):
        with pytest.raises(NoResultFound):
            templates.find_template(service, template_id)
        with pytest.raises(NoResultFound):
            template_folders.find_folder(service, template_id)
    with pytest.raises(NoResultFound):
        brands.find_brand(EmailBrand, "nope")


def test_templates_move_only_between_this_services_folders(service):
    made = templates.add_template(str(service.id), template_type="sms", name="n", body="b")
    folder = template_folders.add_folder(str(service.id), name="  Letters  ")
    assert folder.name == "Letters"
    assert template_folders.move_templates(str(service.id), [str(made.template.id)], str(folder.id)) == 1
    assert Template.get_by_id(made.template.id).folder_id == folder.id
    # An id that is not a UUID is refused like another service's, before it reaches a query.
    with pytest.raises(ValidationError) as refused:
        template_folders.move_templates(str(service.id), ["nope"], None)
    assert _refusal(refused) == ["template_ids are not templates of this service"]
    with pytest.raises(ValidationError) as refused:
        template_folders.move_templates(str(service.id), [], None)
    assert _refusal(refused) == ["Choose at least one template to move"]
    with pytest.raises(ValidationError) as refused:
        template_folders.delete_folder(str(service.id), str(folder.id))
    assert _refusal(refused) == ["Only an empty folder can be deleted"]


def test_brand_rules_the_console_relies_on():
    # The console's form lets these through; the floor refuses them as the admin API's schema does.
    with pytest.raises(ValidationError) as refused:
        brands.create_email_brand(name="   ")
    assert _refusal(refused) == ["name cannot be blank"]
    with pytest.raises(ValidationError) as refused:
        brands.create_email_brand(name="Gemeente", colour="red")
    assert _refusal(refused) == ["colour must be a colour written #rrggbb, like #154273"]
    brand = brands.create_email_brand(name=" Gemeente ", colour="#154273", logo=SVG)
    assert (brand.name, brand.brand_type, bytes(brand.logo_png)[:4]) == ("Gemeente", "org", b"\x89PNG")
    with pytest.raises(BadRequestError) as refused:
        brands.create_email_brand(name="gemeente")
    assert _refusal(refused) == ["Email brand name 'gemeente' already exists"]
    assert brands.update_email_brand(str(brand.id), logo=None).logo_png is None
    letter = brands.create_letter_brand(name="Gemeente", logo=png())
    with pytest.raises(ValidationError) as refused:
        brands.update_letter_brand(str(letter.id), logo=b"GIF89a....")
    assert _refusal(refused) == ["logo must be a PNG or SVG image"]
    assert LetterBrand.get_by_id(letter.id).logo_png is not None


def test_appearance_changes_only_what_is_given(service):
    brand = brands.create_email_brand(name="Gemeente")
    changed = appearance.change_appearance(str(service.id), language="en", email_brand_id=str(brand.id))
    assert appearance.appearance_values(changed) == {"language": "en", "email_brand_id": str(brand.id),
                                                     "letter_brand_id": None}
    assert appearance.change_appearance(str(service.id), email_brand_id=None).language == "en"
    with pytest.raises(ValidationError) as refused:
        appearance.change_appearance(str(service.id), letter_brand_id=str(brand.id))
    assert _refusal(refused) == ["letter_brand_id is not a letter brand"]
    assert AuditEvent.select().where(AuditEvent.action == "service.appearance").count() == 2
