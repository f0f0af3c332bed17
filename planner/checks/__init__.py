"""The checks: the engine (engine/: findings, context, registry, runner, generated docs), the rules (rules/: one
module per code family, discovered by the registry), and what the rules and the faces share: the fixes
(power_fixes.py, slot_fixes.py), case and link arithmetic (case_fit.py, links.py), the power-limit optimiser
(optimize.py, limits.py) and the plan that combines fixes (plan.py). This package imports nothing: import the
module you need.
"""
