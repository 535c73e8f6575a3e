"""Received text messages: an inbox of numbers, a conversation per number, and a reply."""
