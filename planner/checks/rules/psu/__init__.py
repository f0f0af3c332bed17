"""The PSU checks (`psu.*`), one module per concern: headroom.py (`psu.headroom`, `psu.transient`),
connectors.py (`psu.connectors`), split.py (`psu.split`, `psu.multi`). The registry imports them."""
