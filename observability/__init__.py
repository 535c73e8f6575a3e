"""Metrics and structured logs shared by every process (web, workers, scheduler)."""
