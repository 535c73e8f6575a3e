"""Letters as the domain knows them: template letters rendered to PDF (pdf.py, compose.py) and checks on
uploaded, precompiled PDFs (precompiled.py). Page geometry, in millimetres, lives in geometry.py only."""
