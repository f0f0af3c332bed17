"""Plan a lab: several machines on shared circuits, rack PDUs and phases, a UPS, the room's cooling and the
network between them (issue 30). A service beside `solve` and `recommend`: each machine is checked by the
check façade (`planner.api`), and the lab's own checks read each PSU's wall draw from those reports."""
