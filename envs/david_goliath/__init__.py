"""David & Goliath: rules engine, observer and AEC adapter."""
