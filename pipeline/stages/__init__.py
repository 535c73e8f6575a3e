"""The stages the workers' actors run, one per module (or package, for letters, jobs and documents):
each loads by id, decides, saves, and is idempotent."""
