"""hiddenhand configs."""
