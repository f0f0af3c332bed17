"""Every parameter of the physics models (power, efficiency, outlets, transients, connectors, slowdown,
thermals), each with its source and why it has this value. The workload and cost parameters of
the GPU recommendation (memory, speed, prices, electricity) are in planner/recommend/params.py, the placement
model's in planner/placement/params.py.

A user who doubts a number should find it here in a minute. Values are canonical units (W, V, °C).
"""


from planner.util.parameter import Param as Param  # re-exported: params.Param names the type
from planner.util.parameter import Table as Table

# -- DC power budget (README: DC budget) ---------------------------------------------------------------------
BOARD_POWER = Param(
    50, "W", "the planner's default (README: DC budget); workstation boards (VRMs, chipset, BMC, 10 GbE) measure "
    "~30–60 W",
    "the motherboard's own draw when its real figure is not in the catalog")
RAM_MODULE_POWER = Param(
    3, "W", "README: DC budget; JEDEC DDR4/DDR5 RDIMMs draw ~2–5 W each under load",
    "per installed DIMM")
DRIVE_POWER = Param(
    7, "W", "README: DC budget; NVMe SSDs peak at 5–9 W, 3.5\" HDDs ~6–9 W active",
    "per SSD or HDD")
FAN_POWER = Param(
    3, "W", "README: DC budget; 120/140 mm case fans draw 1–3 W at full speed",
    "per case fan")
DEFAULT_RAM_MODULES = Param(
    4, "modules", "planner assumption: a typical multi-GPU desktop has 4 DIMMs", "when [extras] does not say")
DEFAULT_DRIVES = Param(
    2, "drives", "planner assumption: one system SSD and one data drive", "when [extras] does not say")
DEFAULT_FANS = Param(
    4, "fans", "planner assumption: 3 intake + 1 exhaust", "when [extras] does not say")

# -- PSU headroom (docs/verdicts.md psu.headroom) -------------------------------------------------------------
PSU_TARGET_LOAD = Param(
    0.80, "fraction", "common PSU sizing practice; 80 PLUS efficiency peaks near 50 %, and Dettmers' 4×3090"
    " example calls 1400 W of GPUs on a 1600 W unit too tight", "warn above this sustained load fraction")

# -- PSU efficiency and wall draw (README: Efficiency and wall draw; planner/physics/efficiency.py, wall.py) -----------
EFFICIENCY_LOAD_POINTS = (0.10, 0.20, 0.50, 1.00)  # load fractions of the 80 PLUS tables below
EFFICIENCY_115V = Table(
    {"80plus-white": (None, 0.80, 0.80, 0.80), "80plus-bronze": (None, 0.82, 0.85, 0.82),
     "80plus-silver": (None, 0.85, 0.88, 0.85), "80plus-gold": (None, 0.87, 0.90, 0.87),
     "80plus-platinum": (None, 0.90, 0.92, 0.89), "80plus-titanium": (0.90, 0.92, 0.94, 0.90)},
    "efficiency at 10/20/50/100 % load", "80 PLUS 115 V internal (reference README)",
    "the certification minimums: real units do a little better, so wall draw is slightly over-estimated;"
    " used on 100–127 V circuits (linear between points, flat outside them)")
EFFICIENCY_230V = Table(
    {"80plus-white": (None, 0.82, 0.85, 0.82), "80plus-bronze": (None, 0.85, 0.88, 0.85),
     "80plus-silver": (None, 0.87, 0.90, 0.87), "80plus-gold": (None, 0.90, 0.92, 0.89),
     "80plus-platinum": (None, 0.92, 0.94, 0.90), "80plus-titanium": (0.90, 0.94, 0.96, 0.91)},
    "efficiency at 10/20/50/100 % load", "80 PLUS 230 V EU internal (reference README; Titanium 100 % uncertain)",
    "used on 200–240 V circuits")
#: Cybenetics ETA grades are read with the 80 PLUS table of the same name (their average-efficiency bands
#: sit at about the same levels); Diamond, above Titanium, is given Titanium's curve (conservative).
CYBENETICS_AS_80PLUS = {
    "cybenetics-bronze": "80plus-bronze", "cybenetics-silver": "80plus-silver", "cybenetics-gold": "80plus-gold",
    "cybenetics-platinum": "80plus-platinum", "cybenetics-titanium": "80plus-titanium",
    "cybenetics-diamond": "80plus-titanium"}
WALL_EFFICIENCY = Param(
    0.90, "fraction", "80 PLUS Gold at 50 % load, 115 V (reference README)", "DC → wall when no PSU is known")
LOW_LINE_VOLTAGE = Param(
    200, "V", "80 PLUS tests at 115 V and 230 V; mains is either 100–127 V or 200–240 V",
    "a circuit below this uses the 115 V table and a derating PSU's wattage_115v")
#: What a breaker does with a sustained load (README: Outlets and circuits): the continuous limit above is a code rule
#: for loads of
#: three hours or more, not a trip point. Over it `outlet.continuous` warns; over the breaker's rating it fails.
BREAKER_HOLDS = Param(
    1.00, "× rating", "UL 489 calibration (optifuse.com, 'UL 489 vs. UL 1077'; reference real-machines.md): a listed"
    " breaker must carry 100 % of its rating indefinitely in open air; IEC 60898-1: an MCB must not trip at 1.13 × its"
    " rating within an hour", "the sustained load a breaker is required to hold: over it, the breaker will trip")
BREAKER_TRIPS_NA = Param(
    1.35, "× rating", "UL 489 calibration: a breaker of 50 A or less must trip at 135 % of its rating within an hour"
    " (200 % within 2 minutes for 30 A or less)", "quoted in the error for North American circuits")
BREAKER_TRIPS_IEC = Param(
    1.45, "× rating", "IEC 60898-1 conventional tripping current: an MCB must trip at 1.45 × its rating within an"
    " hour (from hot)", "quoted in the error for circuits outside North America")
BREAKER_INSTANT_TRIP = Param(
    3.0, "× rating", "IEC 60898-1 instantaneous (magnetic) trip of a type B MCB: 3–5 × its rating, the lowest class"
    " sold for socket circuits; thermal-magnetic breakers under UL 489 trip instantly only at several times their"
    " rating too", "a transient peak below this multiple of the breaker rating is ridden through by the breaker:"
    " its thermal element needs seconds to minutes at that level (UL 489: 200 % within 2 minutes)")

# -- Power cords and AC inlets (docs/verdicts.md outlet.inlet; planner/physics/wall.py) -----------------------------
C14_INLET_CURRENT = Param(
    10, "A", "IEC 60320 C13/C14 rating (reference README Connectors)", "a C14-inlet PSU's cord outside North America")
C14_INLET_CURRENT_NA = Param(
    15, "A", "UL/CSA rating of C13/C14 in North America (reference README); needs a 14 AWG cord",
    "a C14-inlet PSU's cord on a US or Canadian circuit")
C20_INLET_CURRENT = Param(
    16, "A", "IEC 60320 C19/C20 rating (reference README Connectors)", "a C20-inlet PSU's cord outside North America")
C20_INLET_CURRENT_NA = Param(
    20, "A", "UL/CSA rating of C19/C20 in North America (reference README)",
    "a C20-inlet PSU's cord on a US or Canadian circuit")
NORTH_AMERICA = ("us", "ca")  # outlet regions where the UL/CSA cord ratings above apply

# -- Transients (README: Transients; planner/physics/transients.py) ---------------------------------------------
#: The time windows reviewers measure GPU excursions in (Igor's Lab), shortest first, and the ones a PSU's
#: over-power/over-current protection acts on: it averages current over milliseconds to tens of milliseconds,
#: while its bulk capacitors ride spikes shorter than a millisecond (reference README; computerbase.de forum,
#: quoting Igor Wallossek: only peaks longer than 1–2 ms matter for a PSU's protection).
EXCURSION_WINDOWS = ("< 1 ms", "1–5 ms", "5–10 ms", "10–20 ms")
PROTECTION_WINDOWS = (1, 2, 3)  # indices into EXCURSION_WINDOWS that the PSU check compares
PEAK_WINDOW = 1  # the window the report's dc_peak_w and outlet.peak use: the shortest one protection acts on
RTX_5090_EXCURSIONS = (901.1 / 575, 823.6 / 575, 738.2 / 575, 627.5 / 575)
EXCURSIONS_BY_ARCHITECTURE = Table(
    {"blackwell": RTX_5090_EXCURSIONS}, "× default power, per window (< 1, 1–5, 5–10, 10–20 ms)",
    "Igor's Lab RTX 5090 FE power analysis (2025): 901.1 W < 1 ms, 823.6 W 1–5 ms, 738.2 W 5–10 ms, 627.5 W"
    " 10–20 ms at 575 W (relayed by slashgear.com 2025-07 and others; reference README)",
    "a card's excursions when neither its board nor its chip carries a measurement; a figure measured on another"
    " chip of the architecture is an assumption for this one. No per-window measurement was found for Turing,"
    " Ampere, Ada, RDNA 3 or datacenter cards (heise c't saw an RTX 3090 drawing ~360 W touch 500 W in brief"
    " peaks, window not stated: within the default below); they use DEFAULT_EXCURSIONS")
DEFAULT_EXCURSIONS = Table(
    {"default": RTX_5090_EXCURSIONS}, "× default power, per window",
    "the only full per-window measurement at hand (Igor's Lab RTX 5090 FE, above)",
    "a planner assumption for every card with no measurement of its own chip: the verdicts it leads to are"
    " warnings that say so, never errors")
ATX3_EXCURSION_TABLE = Table(
    {"large": (1.80, 1.60, 1.60, 1.20), "small": (1.45, 1.35, 1.35, 1.10)}, "× rating, per window",
    "Intel ATX 3.x / ATX12VO design guide Table 3-3 (doc 613768 p.23): PSUs above 450 W with a 12VHPWR output ride"
    " 200 % for 100 µs, 180 % for 1 ms, 160 % for 10 ms, 120 % for 100 ms; 450 W or less, or no 12VHPWR:"
    " 150/145/135/110 %", "what an ATX 3.x unit is rated to ride in each window: a 1–5 or 5–10 ms excursion is"
    " covered by the 10 ms figure, a 10–20 ms one by the 100 ms figure (the guarantee that lasts long enough)")
ATX2_OPP_DEFAULT = Param(
    1.18, "× rating", "the 10th percentile of the over-power trip points Tom's Hardware measured on ten ATX 2.x units"
    " (116–140 %, median 125 %: Corsair AX1600i 119.2 %, Seasonic PRIME TX-1600 126.5 % hot, Thermaltake Smart BM2"
    " 750 W 115.9 % hot, EVGA 450 BT 118.3 %, Corsair RM850x 2021 123.4 %…); be quiet! states 120–130 % for"
    " about 20 ms", "what an ATX 2.x unit with no measured trip point is assumed to ride for milliseconds; ATX 2.x"
    " guarantees no excursions, so a verdict resting on this figure is a warning that says so")
TRANSIENT_WARNING_MARGIN = Param(
    0.10, "fraction", "docs/verdicts.md psu.transient",
    "warn when the coincident peak is within this share of capability")

# -- Power connectors (docs/verdicts.md psu.connectors; planner/physics/connectors.py) ------------------------------
PCIE_8PIN_WATTS = Param(150, "W", "PCIe CEM: 8-pin auxiliary connector", "what one 8-pin plug carries")
HPWR_WATTS = Param(600, "W", "PCIe CEM 5.0: 12VHPWR / 12V-2x6 at 55 A", "what one 12VHPWR plug carries")
HPWR_ADAPTER_MIN_PLUGS = Param(
    2, "plugs", "12VHPWR sense pins select 150/300/450/600 W; adapters bundled with cards take 2–4 8-pin plugs",
    "fewest 8-pin plugs on a 12VHPWR adapter: a 12VHPWR input needs ⌈power ÷ 150 W⌉ plugs, at least this")
HPWR_ADAPTER_MAX_PLUGS = Param(4, "plugs", "4 × 150 W = the 600 W maximum of a 12VHPWR input",
                               "most 8-pin plugs on a 12VHPWR adapter")
EPS_ADAPTER_PLUGS = Param(
    2, "plugs", "workstation cards with an EPS (CPU 8-pin) input ship a dual PCIe 8-pin to CPU 8-pin adapter"
    " (e.g. NVIDIA RTX A6000)", "PCIe 8-pin plugs that stand in for one EPS input on a GPU")
EPS_WATTS = Param(
    300, "W", "planner assumption: an EPS 8-pin carries ~300 W (NVIDIA rates its datacenter cards' CPU 8-pin"
    " input at 300 W); boards for CPUs above that have two", "the CPU needs one EPS plug per started 300 W")
HPWR_CABLE_SOCKETS = Param(
    2, "sockets", "Seasonic PRIME TX-1600 (2022): its 12VHPWR cables end in two 8-pin plugs at the PSU"
    " (comptoir-hardware.com, 2022-07); Corsair's Type 4 12VHPWR cable for older units likewise takes two PCIe/CPU"
    " sockets", "shared modular sockets a 12VHPWR / 12V-2x6 cable takes on a unit whose catalog entry does not say")

# -- Multi-PSU split (README: DC budget, docs/verdicts.md psu.split; planner/physics/delivery.py) ----------------------
SPLIT_MAX_CANDIDATES = Param(
    400, "assignments", "planner choice: keeps a re-check of an 8-GPU build within the 20 ms budget",
    "above this many ways to share the GPUs among the PSUs, the split is built greedily, largest card first")

# -- Case fit ---------------------------------------------------------------------------------------
GPU_LENGTH_SPARE = Param(
    10, "mm", "planner assumption: power cables and front fans/radiators eat a few mm",
    "warn when a card leaves less spare length than this")
HPWR_STRAIGHT_RUN = Param(
    35, "mm", "the 12VHPWR/12V-2x6 cable guidance NVIDIA and cable makers give after the RTX 4090 connector melts:"
    " keep the cable straight for at least 35 mm past the plug before the first bend (as reported by Tom's"
    " Hardware, 'Why are power connectors melting…', and builders' guides; the primary PCI-SIG/NVIDIA document"
    " was not found to cite)", "side-panel room a 12VHPWR card needs above its plug: a tighter bend strains the"
    " connector, a cause of the melted plugs")
HPWR_PLUG_HEIGHT = Param(
    20, "mm", "assumed (an estimate): the plug housing from the card's socket to where its wires leave; no"
    " dimensioned drawing of the 12VHPWR/12V-2x6 plug was found to cite",
    "how far the plug itself stands above a card whose socket is on its top edge; a verdict that only this"
    " figure tips is a warning that names it")

# -- Power-limit slowdown (README: Power-limit slowdown; planner/physics/slowdown.py) ----------------------------------
DVFS_STATIC_FRACTION = Param(
    0.25, "fraction of the chip's reference power",
    "README: Power-limit slowdown; leakage, memory and fans draw ~20–30 % of a"
    " GPU's board power whatever the core clock", "the part of the power that does not scale with clock speed;"
    " a property of the silicon, so taken from the chip's tdp, not a factory-overclocked board's")
DVFS_FREQUENCY_EXPONENT = Param(
    1 / 3, "exponent", "README: Power-limit slowdown: dynamic power ∝ f·V² with V tracking f, so ∝ f³",
    "clock speed ∝ (dynamic power)^(1/3)")
COMPUTE_BOUND_BETA = Param(
    1.0, "exponent", "README: Power-limit slowdown; tensor-core throughput scales with the core clock",
    "throughput ∝ (f/f0)^β for"
    " training and prefill; with it the model gives −6.8 % for an RTX 3090 at 300 W (Dettmers: ≈ −7 %)")
MEMORY_BOUND_BETA = Param(
    0.15, "exponent", "reference README: single-stream LLM decode is nearly flat down to ~55–60 % of stock"
    " (memory bandwidth, not the core clock, sets its speed)", "throughput ∝ (f/f0)^β above the knee: −1 % at"
    " 86 % power, −4 % at 60 %")
MEMORY_BOUND_KNEE = Param(
    0.60, "fraction of stock power", "reference README: memory-bound decode falls off below ~55–60 % of stock",
    "below this the core clock becomes the bottleneck and throughput follows the clock (β = 1)")

# -- Thermals and airflow (README: Thermals; planner/physics/thermal.py) -------------------------------------
AIR_HEATING = Param(
    1.76, "°C·CFM/W", "ρ·c_p of 20 °C air at sea level (reference README Thermals; vendor rule CFM = 3160 × kW"
    " / ΔT °F)", "air rise ΔT = 1.76 × W / CFM")
EFFECTIVE_AIRFLOW_FRACTION = Param(
    0.70, "fraction", "planner assumption: case fans work against filters and mesh at ~0.5–1 mm H₂O, where a"
    " 140 mm fan moves ~60–80 % of its free-air rating (reference README: effective airflow is well below the"
    " sum of the ratings)", "the airflow that really passes through the case, from the fans' free-air ratings")
ASSUMED_INTAKE_FAN = Param(
    60, "CFM", "planner assumption: a typical 120/140 mm case fan is rated 50–80 CFM free-air (Arctic P14 72.8,"
    " Fractal GP-14 68.4)", "per intake fan in a case that ships without fans (one of extras.fans exhausts)")
# Temperature rise over its inlet air at the card's own default power, per cooler type. Coolers are sized
# for their card's power, so R_th = rise / tdp: a fixed K/W would make every 450 W card run 12 °C hotter
# than a 350 W one, which the measurements contradict (3090 FE 0.12 K/W at 344 W, 5090 FE 0.09 K/W at 575 W).
RISE_FLOW_THROUGH = Param(
    43, "°C at tdp", "RTX 3090 FE at 344 W on an open bench in a 28 °C room ≤ 70 °C (weekly.ascii.jp); RTX 5090"
    " FE at 575 W, 25 °C room, closed case: 75–77 °C (sweclockers.com)", "NVIDIA Founders Edition style coolers")
RISE_OPEN_AIR = Param(
    38, "°C at tdp", "Tom's Hardware: large 3-fan partner RTX 4090s run ~10 °C cooler than the FE; smaller"
    " 2-fan coolers run hotter; 38 °C is between (assumption)", "axial-fan partner coolers")
RISE_BLOWER = Param(
    55, "°C at tdp", "planner assumption (no public measurement, reference README): blower cards are tuned to run"
    " close to their 83–84 °C target in a 25 °C room", "radial-fan cards that exhaust through the bracket")
RISE_LIQUID = Param(
    25, "°C at tdp", "planner assumption: water-blocked GPUs typically run 45–55 °C in a 25 °C room",
    "water blocks and AIO coolers")
RISE_PASSIVE = Param(
    40, "°C at tdp", "planner assumption: datacenter cards in qualified servers run ~60–75 °C at 25–35 °C inlet",
    "passive cards, only valid with server airflow")
CASE_SHARE_FLOW_THROUGH = Param(
    0.5, "fraction", "planner assumption: one of the two fans exhausts through the bracket, the other blows"
    " through the fin stack into the case", "share of a flow-through card's heat left in the case")
CASE_SHARE_OPEN_AIR = Param(
    1.0, "fraction", "README: Thermals: open-air cards put all of their heat inside the case", "share left in the case")
CASE_SHARE_BLOWER = Param(
    0.2, "fraction", "planner assumption (no measurement found, reference README): blowers exhaust most of their"
    " heat through the bracket; the shroud and backplate shed the rest", "share left in the case")
CASE_SHARE_LIQUID = Param(
    0.5, "fraction", "planner assumption: front-intake radiators heat the case, top/rear-exhaust ones do not; the"
    " mounting is not in the build file", "share left in the case")
CASE_SHARE_PASSIVE = Param(
    1.0, "fraction", "passive cards heat the air that the chassis fans push through them",
    "share left in the case")
CASE_AIR_MIX = Param(
    0.5, "fraction of the case air rise", "planner assumption: well-mixed case air is half-way between the"
    " intake and the exhaust temperature", "inlet of a card whose position is unknown or off the slot row")
SANDWICH_PENALTY = Param(
    1.25, "× thermal resistance", "planner assumption; Dettmers: adjacent non-blower cards run markedly slower"
    " (~30 % in his 2018 guide); Tom's Hardware: keep a free slot between open-air cards",
    "a starved intake pressed against the next card's backplate cools worse")
SANDWICH_RECIRCULATION = Param(
    0.5, "fraction", "planner assumption", "share of a sandwiched card's intake air that is the exhaust of the"
    " card right below it")
CARD_AIRFLOW = Param(
    50, "CFM", "planner assumption: two or three axial fans at load speed push ~40–60 CFM through a fin stack",
    "air through one card's cooler: its exhaust is 1.76 × W / 50 °C warmer than its intake")
# What heats or starves a card's intake besides the card below it (planner/physics/thermal.py). Calibration: the
# issue #11 machine (github.com/noonghunna/club-3090 issue #178, 2026): two RTX 3090s "right next to each other
# in a case with not great airflow, even with the side panel off", the lower one "sandwiched between GPU0 and
# the PSU"; steady state 86–88 °C on the upper card and 90–91 °C on the lower one, whose clock fell from 1725 to
# 1365 MHz. The planner's earlier model gave 80 and 63 °C for it (a 20 °C room at 350 W).
SLOT_PITCH = Param(
    20.32, "mm", "PCI Express CEM / ATX: expansion slots sit 0.8 in apart", "one free slot position is this much room")
STARVED_INTAKE_GAP = Param(
    20.32, "mm", "ZOTAC SLI/NVLink spacing FAQ and Tom's Hardware: leave at least one free slot (one pitch) in front"
    " of an open-air card's fans; fan makers ask for 1/3 of the fan's diameter on the suction side (~35 mm for a"
    " GPU's 100–110 mm fans, cnamore.com mounting considerations), so one slot is the lenient end",
    "a card whose fans face a solid surface (the case floor, the PSU shroud, a drive cage) closer than this is"
    " starved, like a card right on top of another")
FLOOR_CLEARANCE_ASSUMED = Param(
    10, "mm", "planner assumption (no case maker publishes it): in ATX towers the PSU shroud or floor sits just"
    " under the last expansion slot opening", "room under the last slot position when the case entry has no"
    " `floor_clearance`; a finding that rests on it says so")
FLOOR_STARVED_PENALTY = Param(
    1.4, "× thermal resistance", "calibrated on the issue #11 machine (club-3090 issue #178: the lower RTX 3090,"
    " over the PSU, at 90–91 °C while throttling, so at least that unthrottled; 1.4 with the terms below gives"
    " 92 °C at 350 W in a 20 °C room, and the upper card 84 °C against 86–88 measured); ZOTAC's spacing FAQ: the"
    " bottom card also suffers when it has no room under it",
    "a card whose fans face the floor or the PSU shroud a few mm away cools worse: its fans move less air (its"
    " exhaust is this much warmer too); higher than SANDWICH_PENALTY because the floor closes the pocket on more"
    " sides than another card does")
FLOOR_RECIRCULATION = Param(
    0.5, "fraction", "planner assumption, as SANDWICH_RECIRCULATION", "share of a floor-starved card's intake air"
    " that is its own exhaust, curling back into the pocket between the card and the floor")
PSU_BELOW_HEAT_SHARE = Param(
    0.5, "fraction", "planner assumption: a bottom PSU with its fan down exhausts most of its loss through the rear"
    " grille; its case and the shroud above it shed the rest into the pocket under the lowest card",
    "share of the bottom PSU's loss heat (DC load × (1 / 90 % − 1), WALL_EFFICIENCY) that warms the intake of a"
    " card starved right above it")
CASE_RISE_WARNING = Param(
    10, "°C", "docs/verdicts.md thermal.case", "warn when the case air rises more than this over the room")
CASE_RISE_ERROR = Param(
    15, "°C", "docs/verdicts.md thermal.case", "error when the case air rises more than this over the room")

# -- Power-limit optimiser (README: Power-limit optimiser; planner/checks/optimize.py) ---------------------------------
POWER_LIMIT_STEP = Param(
    5, "W", "README: Power-limit optimiser",
    "the optimiser proposes limits in steps of this size (nvidia-smi takes whole watts)")

# -- PCIe peer-to-peer between cards (checks/pcie.py; recommend/decode.py through recommend/params.py) --------------
NO_P2P_GEFORCE = Table(
    {"turing": (0.0,), "ampere": (0.0,), "ada": (0.0,), "blackwell": (0.0,)}, "peer-to-peer (0: off)",
    "RTX 40 and 50: an NVIDIA representative on NVIDIA's developer forums: the GeForce RTX 4090 does not support PCIe"
    " peer-to-peer (reported by https://www.purepc.pl/nvidia-geforce-rtx-4090-amerykanska-firma-potwierdza-ze-jej-"
    "topowy-uklad-nie-obsluguje-profesjonalnego-trybu-peer-to-peer); tinygrad/open-gpu-kernel-modules#28 and #29"
    " (RTX 4090, RTX 4060 Ti and RTX 5090: no peer access with NVIDIA's driver, only with a patched kernel module);"
    " nvidia-smi topo -p2p r shows NS on these cards. RTX 30: huggingface/accelerate#2328 (2023) still found it on"
    " the 3090, but NVIDIA/nccl#1127 (2024-02) has a 3090 server whose peer access works with driver 535 and not"
    " with 545, noonghunna/club-3090#356 (2026) 'on a stock driver, 3090 PCIe P2P is disabled by NVIDIA' (the rig's"
    " NCCL stages every all-reduce through host memory) and aikitoria/open-gpu-kernel-modules#3 (2025) enables it on"
    " two 3090s only with the patched module: off on current drivers. RTX 20: tensorflow/tensorflow#24677 (2019),"
    " the 2080 Ti has no peer access without an NVLink bridge",
    "GeForce cards of these architectures (RTX 20, 30, 40 and 50): the driver (the 545 branch and later for RTX 30)"
    " disables PCIe peer-to-peer, so traffic between two of them is copied through host memory, even behind one"
    " PCIe switch; a bridged NVLink pair talks over the bridge; a chip's `p2p` in gpu-chips.toml overrides this"
    " rule")
