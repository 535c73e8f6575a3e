"""Accepting a send: check, record, enqueue after commit, for an API key, a console user or a stage.

Here rather than in core/ because a worker sends through them too (a case event, issue 52), and
workers may not import the floor above them; the doors call them as they called core/."""
