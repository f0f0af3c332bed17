"""Exports of README: Command-line reference: parts lists (md, csv, json, text); later power-limit scripts."""
