"""Organisations: pages of a public body and its services, and the platform admin's search."""
