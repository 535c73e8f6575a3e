"""jobs pages of the console: bulk sending from a spreadsheet."""
