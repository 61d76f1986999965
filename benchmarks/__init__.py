"""Accuracy, latency and memory measurements (not timed tests); ``python -m benchmarks``."""
