"""The command-line face: parse arguments, call the core, render. No domain logic here."""
