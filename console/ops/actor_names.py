"""What each worker actor does, in words, for the worker dashboard: the actor's own name stays beside it
for whoever reads the logs, where only that name appears."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l
from markupsafe import Markup, escape

DESCRIPTIONS = {
    "build_message_report": _l("Builds a messages report to download"),
    "check_case_event_subscriptions": _l("Checks that each service's subscription at Open Notificaties "
                                         "still holds (ZGW)"),
    "check_slow_receipts": _l("Checks which SMS gateways are slow to report delivery"),
    "confirm_sns_subscription": _l("Confirms the email provider's notification subscription"),
    "create_job_rows": _l("Turns a spreadsheet's rows into messages"),
    "create_letter_pdf": _l("Makes a letter's PDF"),
    "delete_expired_files": _l("Deletes files sent by email once they expire"),
    "deliver_email": _l("Sends an email"),
    "deliver_email_group": _l("Sends emails in a group"),
    "deliver_job_email": _l("Sends an email of a spreadsheet"),
    "deliver_job_email_group": _l("Sends emails of a spreadsheet in a group"),
    "deliver_job_sms": _l("Sends a text message of a spreadsheet"),
    "deliver_job_sms_group": _l("Sends text messages of a spreadsheet in a group"),
    "deliver_simulated": _l("Sends a scheduled test-key message to the simulator"),
    "deliver_sms": _l("Sends a text message"),
    "deliver_sms_group": _l("Sends text messages in a group"),
    "delivery_retries_exhausted": _l("Gives up a send after its last try"),
    "flush_simulated_receipts": _l("Reports the simulator's deliveries"),
    "flush_simulated_sends": _l("Hands test-key messages to the simulator"),
    "fold_held_counts": _l("Sums up today's counts for the dashboard"),
    "give_back_simulated_batch": _l("Returns a batch the simulator could not take"),
    "letter_stage_failed": _l("Gives up a letter after its last try"),
    "message_report_failed": _l("Gives up a messages report after its last try"),
    "print_batch_failed": _l("Gives up a print batch after its last try"),
    "print_letters": _l("Gathers letters ready to print into batches"),
    "process_case_event": _l("Tells a citizen about a step in their case (ZGW)"),
    "purge_expired": _l("Deletes messages past their retention period"),
    "purge_message_reports": _l("Deletes old messages reports"),
    "read_print_answers": _l("Reads the print provider's answers"),
    "record_klantcontact": _l("Records a case message as a customer contact in Open Klant"),
    "relay_follow_ups": _l("Sends follow-ups whose message was lost after their change was saved"),
    "roll_up_days": _l("Sums up closed days for usage and the dashboard"),
    "scan_precompiled_letter": _l("Checks an uploaded letter for viruses"),
    "send_delivery_status": _l("Tells a service's callback a message's status"),
    "send_event_callback": _l("Tells a service's callback a complaint, returned letter or unsubscribe request"),
    "send_fallback": _l("Sends the alternative of a message that failed"),
    "send_inbound_sms": _l("Tells a service's callback a received text message"),
    "send_print_batch": _l("Hands a batch of letters to the print provider"),
    "settle_unknown_outcomes": _l("Settles sends whose outcome is unknown"),
    "start_job": _l("Starts sending a spreadsheet"),
    "sweep_case_events": _l("Sends case events again whose message was lost, and deletes old ones"),
    "sweep_held_receipts_job": _l("Applies delivery reports that came before their message"),
    "sweep_jobs": _l("Restarts spreadsheets that stalled"),
    "sweep_outboxes": _l("Restarts simulator batches that stalled"),
    "sweep_stuck_letters": _l("Restarts letters that stalled"),
    "sweep_stuck_notifications": _l("Restarts sends that stalled"),
    "time_out_sending": _l("Fails messages without a delivery report after 72 hours"),
    "warn_expiring_keys": _l("Warns about API keys that expire soon"),
}


def described(actor_name: str) -> Markup:
    """The actor in words, its name beside it as code (the logs name it so); an unknown one by its name."""
    name = Markup('<code class="notify-actor-name" lang="en">{}</code>').format(actor_name)
    words = DESCRIPTIONS.get(actor_name)
    return name if words is None else Markup("{} {}").format(escape(words), name)
