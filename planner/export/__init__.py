"""Exports of SPEC §7: parts lists (md, csv, json, text); later power-limit scripts."""
