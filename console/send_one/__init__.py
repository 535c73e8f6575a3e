"""Send one message from a template: recipient and placeholders, preview, send."""
