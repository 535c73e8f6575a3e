"""settings pages of the console."""
