"""The forms of the template pages."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import RadioField, SelectField, SelectMultipleField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length

from core.templates import DEFAULT_POSTAGE

TYPE_LABELS = {"email": _l("Email"), "sms": _l("Text message"), "letter": _l("Letter")}
# The API's first/second/economy by how soon the post delivers, not by Royal Mail's class names.
POSTAGE_LABELS = {"first": _l("Priority"), "second": _l("Standard"),
                  "economy": _l("Economy")}


class ChooseTypeForm(FlaskForm):
    template_type = RadioField(_l("What kind of template?"), choices=list(TYPE_LABELS.items()),
                               validators=[InputRequired(_l("Choose a kind of template"))])


class TemplateForm(FlaskForm):
    name = StringField(_l("Template name"), validators=[
        DataRequired(_l("Enter a name for the template")), Length(max=255, message=_l("Use 255 characters or fewer"))])
    subject = StringField(_l("Subject"))
    body = TextAreaField(_l("Message"), validators=[DataRequired(_l("Enter the message"))])
    postage = RadioField(_l("Postage"), choices=list(POSTAGE_LABELS.items()), default=DEFAULT_POSTAGE)
    letter_contact = SelectField(_l("Contact block"))
    folder = SelectField(_l("Folder"))

    def for_type(self, template_type: str) -> TemplateForm:
        """Keep only the fields of the template type; an email's subject is required, a letter's heading too."""
        if template_type == "sms":
            del self.subject
        else:
            self.subject.label.text = _l("Subject") if template_type == "email" else _l("Heading")
            self.subject.validators = [DataRequired(_l("Enter the subject") if template_type == "email"
                                                    else _l("Enter the heading"))]
        if template_type != "letter":
            del self.postage
            del self.letter_contact
        return self


class FolderForm(FlaskForm):
    name = StringField(_l("Folder name"), validators=[
        DataRequired(_l("Enter a name for the folder")), Length(max=255, message=_l("Use 255 characters or fewer"))])
    parent = SelectField(_l("Put it in"))


class MoveForm(FlaskForm):
    template_ids = SelectMultipleField(_l("Templates"), validate_choice=False)
    folder = SelectField(_l("Move the chosen templates to"))


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""
