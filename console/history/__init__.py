"""history pages of the console."""
