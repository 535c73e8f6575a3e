"""gunicorn's own lines (errors, the access log) as JSON objects, like every other process's."""
from __future__ import annotations

from typing import Any

from gunicorn import glogging

from observability.logs import json_formatter


class JsonLogger(glogging.Logger):
    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        for logger in (self.error_log, self.access_log):
            for handler in logger.handlers:
                handler.setFormatter(json_formatter("web"))
