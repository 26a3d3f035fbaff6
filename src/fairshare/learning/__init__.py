"""Training code (torch): models, training engine, aggregation, per-paper training loops."""
