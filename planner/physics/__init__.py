"""Physical models (power, later efficiency, transients, slowdown, thermals). Parameters: params.py."""
