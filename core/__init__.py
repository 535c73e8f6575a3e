"""The rules floor: every business operation the doors (api/, console/, cli/) share. Plain values in,
models or dataclasses out, errors from pipeline.domain.errors; never imports flask or a door."""
