"""Letters: template letters rendered to PDF (pdf.py) and checks on uploaded, precompiled PDFs
(precompiled.py). Page geometry, in millimetres, lives in geometry.py only."""
