"""Every area of the console (`console/<area>/views.py`), registered in this order by the factory
(`console/wiring.py`, `register_blueprints`): a new area adds its line here."""
from __future__ import annotations

from console.account_settings.views import bp as account_settings_bp
from console.accounts.views import bp as accounts_bp
from console.api_integration.views import bp as api_integration_bp
from console.api_keys.views import bp as api_keys_bp
from console.appearance.views import bp as appearance_bp
from console.case_events.views import bp as case_events_bp
from console.conversations.views import bp as conversations_bp
from console.dashboard.views import bp as dashboard_bp
from console.delivery_events.views import bp as delivery_events_bp
from console.gateways.views import bp as gateways_bp
from console.go_live.views import bp as go_live_bp
from console.history.views import bp as history_bp
from console.jobs.views import bp as jobs_bp
from console.letter_upload.views import bp as letter_upload_bp
from console.mailbox.views import bp as mailbox_bp
from console.main.views import bp as main_bp
from console.messages.views import bp as messages_bp
from console.ops.views import bp as ops_bp
from console.organisations.views import bp as organisations_bp
from console.send_one.views import bp as send_one_bp
from console.services.views import bp as services_bp
from console.settings.views import bp as settings_bp
from console.team.views import bp as team_bp
from console.template_editor.views import bp as template_editor_bp

BLUEPRINTS = (
    main_bp, accounts_bp, account_settings_bp,
    services_bp, api_keys_bp, team_bp, settings_bp, go_live_bp, history_bp,  # a service's set-up
    api_integration_bp,  # what the API keys sent and how callbacks were answered
    dashboard_bp,  # dashboard and usage
    appearance_bp,  # what citizens see: language and brands
    delivery_events_bp,  # complaints, returned letters, unsubscribe requests
    case_events_bp,  # Dutch case events (ZGW): the link under settings, what became of each under activity
    template_editor_bp,  # templates in folders
    jobs_bp,  # bulk sending from a spreadsheet
    letter_upload_bp,  # a letter sent as the service's own PDF
    messages_bp,  # messages, their report, cancelling
    send_one_bp, conversations_bp,  # one-off sends; received texts and replies
    ops_bp,  # the worker dashboard (platform admins)
    gateways_bp,  # the SMS gateways and their pace (platform admins)
    organisations_bp,  # public bodies and their services; the platform admin's search
    mailbox_bp,  # dev.py run's local mailbox (platform admins)
)
