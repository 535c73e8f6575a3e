"""Creates a service, a key and an sms template in the configured database; prints them as JSON."""
import json
import sys
import uuid

from config import get_settings
from models.api_key import create_api_key
from models.db import database, init_database
from models.migrations import migrate
from models.service import Service
from models.template import create_template

TEMPLATE_BODY = "Your code is ((code))"

if __name__ == "__main__":
    key_type = sys.argv[1] if len(sys.argv) > 1 else "test"
    init_database(get_settings().database_url)
    migrate()
    with database.connection_context():
        service = Service.create(name=f"bench {uuid.uuid4().hex[:8]}", trial_mode=False, rate_limit=10**9,
                                 sms_daily_limit=10**9, email_daily_limit=10**9)
        _, key = create_api_key(service, name="bench", key_type=key_type)
        template = create_template(service, template_type="sms", name="bench", body=TEMPLATE_BODY, created_by="bench")
    print(json.dumps({"key": key, "service_id": str(service.id), "template_id": str(template.id),
                      "template_body": TEMPLATE_BODY}))
