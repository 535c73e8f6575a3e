"""Infrastructure: what the rules and stages run on but do not decide (throughput machinery)."""
