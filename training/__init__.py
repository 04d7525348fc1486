"""hiddenhand training."""
