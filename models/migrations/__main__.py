"""The release step: `python -m models.migrations` creates or upgrades the schema in place."""
from config import get_settings
from models.db import init_database
from models.migrations import release

database_url = get_settings().database_url
init_database(database_url)
print(f"schema migrations applied: {release(database_url) or 'none (up to date)'}")
