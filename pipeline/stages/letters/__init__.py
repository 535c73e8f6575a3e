"""The letter stages: a letter's PDF made and scanned (stages.py), letters sent to the print house in
batches (printing.py, held.py) and returned letters read back (returns.py)."""
