"""The checks of SPEC §3, one module per code family (case.py holds `case.*`, psu/ holds `psu.*`…), and what they
share: findings.py (what a check reports), context.py (what it sees), registry.py (`@check(code, reads=…)`, and
the registry that loads the families on first use), runner.py (`run_checks`, fix re-checks) and optimize.py (the
power-limit optimiser). This package imports nothing: import the module you need.
"""
