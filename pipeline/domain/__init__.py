"""The domain's vocabulary: recipients, rendering, statuses and their transition table, cost, prices,
refusals as codes and errors without HTTP status codes. Imports nothing from the stages or the
infrastructure."""
