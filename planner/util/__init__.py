"""Utilities every layer may use: reading and writing files and TOML, units, number and text formatting,
errors, parameters with sources, memos, settings, crash recovery and the records the models are built on. They
import nothing of the planner above them."""
