"""Case events (issue 52): what a recorded Open Notificaties message becomes (`processing`: read the case
from the ZGW APIs, choose the scenario and the channel, send through the API's own send), the
klantcontact recorded in Open Klant once the message is final (`contact`), the sweep that picks up
what is due (`sweep`), the service's subscription at Open Notificaties (`subscription`) and the hourly
check that it still holds (`watch`). The actors are workers/case_events.py's; the link's rules
core/case_events.py's.
"""
