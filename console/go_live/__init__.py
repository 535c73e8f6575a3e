"""go_live pages of the console."""
