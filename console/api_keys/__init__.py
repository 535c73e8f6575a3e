"""api_keys pages of the console."""
