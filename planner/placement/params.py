"""Parameters of the placement model (slots, lanes, the PCIe tree), each with its source and why."""

from planner.util.parameter import Param

# -- Placement, lanes and risers (README: Placement; planner/placement/, planner/checks/rules/slot.py, riser.py) -------
OPEN_AIR_GAP_CAP = Param(
    2, "positions", "planner assumption; Tom's Hardware: keep at least one free expansion slot between open-air"
    " cards", "the solver's cooling objective counts the free positions below an open-air card up to this many:"
    " past two, more space hardly changes what its fans can draw in")
PCIE_GEN3_LANE_BANDWIDTH = Param(
    0.985, "GB/s", "PCI-SIG: PCIe 3.0 runs 8 GT/s per lane with 128b/130b encoding; each generation doubles it"
    " (Gen4 1.97, Gen5 3.94 GB/s)", "per lane and direction, to state what a narrower link costs")
RISER_RIBBON_MAX_GEN = Param(
    3, "PCIe generation", "documented builds on passive ribbon risers sold as PCIe 4.0: a 6 × RTX 3090 WRX80 render"
    " server booted only with its slots at PCIe 3.0, and a reply there found a PCIe 4.0 riser that worked on X299"
    " and X570 boards failing on the WRX80 (forum.level1techs.com/t/190742); the WOPR 7 × RTX 4090 build"
    " (mov-axbx.com/wopr/wopr_risers.html) spilled PCIe AER errors over Lian Li and other 'PCIe 4.0' ribbon"
    " risers, and its author's cure for the slot that still logged errors is a C-Payne redriver/retimer adapter;"
    " Fractal Design's own PCIe 4.0 riser in its Ridge case was unstable with Gen4 cards, and Fractal advised"
    " setting the slot to PCIe 3.0 in the BIOS (chip.pl, 2023-01). Shielded twinax cable assemblies and"
    " redriver/retimer kits are what such builds run at Gen4", "riser.signal warns when a faster link runs over a"
    " passive ribbon riser, at any length (the reports name no length that is safe, and the Ridge's riser is a"
    " small-form-factor case's), unless its maker validated it with the build's case or board: a warning, since the"
    " same riser works with other card and board pairs")
CHIPSET_UPLINK_LANES = Param(
    4, "lanes", "AMD AM4/AM5 and TRX50 chipsets hang off a PCIe x4 link to the CPU; Intel's Z790 DMI 4.0 is x8"
    " (the narrower figure is used)", "GPUs in chipset-fed slots share this one link to the CPU")
