"""The rules: one module per code family (case.py holds `case.*`, psu/ holds `psu.*`…), each check a function
declared with `@check(code, reads=…, order=…, section=…, error=…, warning=…, evidence=…)`. The registry
(planner/checks/engine/registry.py) imports every module of this package: a new check is a module here, or a
function in its family's module, and its tests.
"""
