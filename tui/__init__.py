"""The Textual face of the planner (`planner tui`). It imports `planner`; `planner` never imports it."""
