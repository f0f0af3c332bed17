"""gpu-rig-planner: plan multi-GPU deep-learning workstations.

The core (models, catalogs, checks, physics, export) lives here and never imports the TUI.
Importing this package is cheap on purpose: heavy libraries load only where they are used.
"""

__version__ = "0.1.0"
