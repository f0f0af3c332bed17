"""The lab's parameters, each with its source and why (as physics/params.py)."""

from planner.util.parameter import Param, Table

#: The continuous-load rule by region for a feed the lab file declares without one: share of the breaker a
#: continuous load may use.
CONTINUOUS_FACTOR = Table(
    values={"us": (0.8,), "ca": (0.8,), "eu": (1.0,), "uk": (1.0,), "jp": (0.8,), "cn": (1.0,), "au": (1.0,)},
    unit="fraction of the breaker rating",
    source="NEC 210.20(A)/215.3 and CEC Rule 8-104 (80 % for continuous loads on standard breakers); elsewhere no "
           "code rule: the planner's assumption (breakers rated for continuous duty), as catalogs/outlets.toml says",
    why="A lab runs its GPUs for hours: a continuous load.")

PDU_BANK_FACTOR = Param(
    0.8, "fraction of the bank breaker",
    "Geist (Vertiv), 'What rating should I use to correctly select a PDU': internal breakers loaded to 80 % of "
    "their rating; APC FAQ FA319189 (20 A outlets behind 20 A breakers); datacentermd.com, 208 V/3Φ 30 A example",
    "A PDU bank's breaker protects the outlets behind it; loading it to 80 % avoids nuisance trips under a "
    "continuous load, the same margin NEC asks of the branch circuit.")

PHASE_IMBALANCE = Param(
    0.2, "fraction of the mean line current",
    "the planner's threshold; Raritan, 'How to calculate current on a 3-phase 208V rack PDU' (2011) and "
    "datacentermd.com show unbalanced banks overloading one line while the total is in limits",
    "Beyond 20 % from the mean line current one line reaches its breaker well before the feed's total does; "
    "a warning: the feed may still hold, but its capacity is wasted.")

LOAD_POWER_FACTOR = Param(
    0.9, "W/VA",
    "80 PLUS (and ENERGY STAR computer) requirement: power factor ≥ 0.9 at 100 % load for certified PSUs with "
    "active PFC",
    "A UPS's VA rating is checked against the load's W ÷ this factor: the lowest power factor a certified PSU may "
    "have, so the VA check never passes on a guess.")

OFFICE_COOLING_W_PER_M2 = Param(
    53.8, "W/m²",
    "Komor, 'Space cooling demands from office plug loads', ASHRAE Journal 39(12), Dec 1997: designers assume "
    "2–5 W/ft² (21.5–53.8 W/m²) for office equipment",
    "An office's HVAC is sized for its plug loads; the top of the designers' range is the most heat from "
    "equipment an ordinary office can be expected to remove (an estimate: the room's own figure is better).")

OFFICE_AREA_M2 = Param(
    20.0, "m²", "the planner's assumption: a small office room", "Used when an office names no area.")

BTU_PER_W = Param(3.412142, "BTU/h per W", "1 W = 3.412142 BTU/h (definition of the IT BTU)", "Units.")

DP_FLOOR_GBPS = Param(
    50.0, "Gbit/s",
    "Tim Dettmers, 'Which GPU(s) to Get for Deep Learning' (2023): parallelising across machines needs at least "
    "50 Gbit/s networking (InfiniBand for more)",
    "The guide's floor for training across machines, whatever the estimate of the traffic says.")

DP_OVERLAP = Param(
    0.5, "fraction of the step",
    "the planner's assumption: gradient all-reduce overlaps the backward pass, which is about half to two thirds "
    "of a training step (PyTorch DDP bucketing, Li et al., VLDB 2020)",
    "The all-reduce must finish within this share of the step for the network not to slow training.")

NIC_SPEEDS = (10.0, 25.0, 40.0, 50.0, 100.0, 200.0, 400.0)  # Ethernet/InfiniBand port speeds, Gbit/s

COOLING_COP = Param(
    3.2, "W of heat removed per W of electricity",
    "11.0 EER ÷ 3.412 BTU/h per W: the minimum efficiency the energy code asks of air-cooled split air conditioners "
    "of 65,000–135,000 BTU/h (Washington WAC 51-11C-403329, Table C403.3.2(9), after ASHRAE 90.1: "
    "https://lawfilesext.leg.wa.gov/Law/WAC/WAC%20%2051%20%20TITLE/WAC%20%2051%20-%2011C%20CHAPTER/"
    "WAC%20%2051%20-%2011C-403329.htm)",
    "Cooling costs the electricity to pump the lab's heat out: heat ÷ COP. The code's minimum is the least efficient "
    "unit that may be installed, so the cost is an upper bound for a newer or larger unit.")
