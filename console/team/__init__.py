"""team pages of the console."""
