"""The domain's vocabulary: recipients, rendering, branding, letters, statuses and their transition table,
cost, refusals as codes and errors without HTTP status codes. Pure: it imports nothing of the repository
outside itself, no model and no setting (docs/architecture.md#layers-point-one-way); tests/test_layers.py
checks it."""
