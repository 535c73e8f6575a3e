"""delivery-events pages of the console."""
