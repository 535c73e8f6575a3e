"""The release step: `python -m models.migrations` creates or upgrades the schema in place. A database
it cannot upgrade, or a step's missing SQL file, stops it with one line on stderr (exit 1) saying
which: the operator reads what to do, not a traceback."""
import sys

from config import get_settings
from models.db import init_database
from models.migrations import MissingStepFile, UnsupportedDatabase, release

database_url = get_settings().database_url
init_database(database_url)
try:
    applied = release(database_url)
except UnsupportedDatabase as refusal:
    sys.exit(f"refusing to migrate: {refusal}")
except MissingStepFile as refusal:
    sys.exit(f"release step stopped: {refusal}")
print(f"schema migrations applied: {applied or 'none (up to date)'}")
