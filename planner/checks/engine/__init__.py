"""The check engine: what a check reports (findings.py), what it sees (context.py), how it is declared and found
(registry.py: `@check(…)`, and the registry that imports the rules package on first use), how checks run and
fixes are re-checked (runner.py), and docs/verdicts.md's tables generated from the declarations (docs.py). It
knows no rule: the rules live in planner/checks/rules/. This package imports nothing: import the module you need.
"""
