"""services pages of the console."""
