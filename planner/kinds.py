"""The part kinds and their catalog files: plain data, importable without pydantic (the CLI's parser needs
them for `planner --help`)."""

#: Catalog file of each kind.
KIND_FILES: dict[str, str] = {
    "gpu-chip": "gpu-chips.toml",
    "gpu": "gpus.toml",
    "psu": "psus.toml",
    "case": "cases.toml",
    "motherboard": "motherboards.toml",
    "cpu": "cpus.toml",
    "riser": "risers.toml",
    "outlet": "outlets.toml",
    "model": "models.toml",
    "base-part": "base-parts.toml",
    "pdu": "pdus.toml",
    "ups": "ups.toml",
    "nic": "nics.toml",
    "switch": "switches.toml",
    "cable": "cables.toml",
}
