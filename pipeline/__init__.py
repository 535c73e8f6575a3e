"""What the stages run, in three folders: domain/ (the vocabulary), stages/ (what the actors call) and
infrastructure/ (provider clients, storage, batching, outbox, throughput machinery)."""
