"""Bulk sends from a spreadsheet: reading the file, checking its rows, turning them into notifications."""
