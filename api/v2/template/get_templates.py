from __future__ import annotations

from flask import Response, g, jsonify, request

from api.openapi import documented
from api.schema import validate
from api.v2.blueprint import v2_blueprint
from api.v2.template.serialise import template_json
from api.v2.template.template_schemas import get_templates_query, templates_response
from models.template import Template, TemplateVersion


@v2_blueprint.get("/templates")
@documented("The service's templates (latest versions), optionally of one type.", {200: templates_response},
            query=get_templates_query)
def get_templates() -> Response:
    query = {k: v for k, v in request.args.items() if v}
    validate(get_templates_query, query)
    rows = (
        TemplateVersion.select(TemplateVersion, Template)
        .join(Template)
        .where(
            (Template.service == g.caller.service)
            & (Template.archived == False)  # noqa: E712
            & (TemplateVersion.version == Template.current_version)
        )
        .order_by(TemplateVersion.name, Template.created_at)
    )
    if "type" in query:
        rows = rows.where(Template.template_type == query["type"])
    return jsonify({"templates": [template_json(row) for row in rows]})
