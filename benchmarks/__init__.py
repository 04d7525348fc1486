"""hiddenhand benchmarks."""
