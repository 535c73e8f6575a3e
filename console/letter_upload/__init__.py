"""Uploading a precompiled letter (PDF): check, preview page by page, send."""
