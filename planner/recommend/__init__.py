"""GPU recommendation (docs/performance-model.md): memory need (memory.py), a calibrated performance model (perf.py,
calibration.py), ranking by performance per dollar (rank.py, fit.py for `--build`), cloud vs buy (tco.py),
charts (plot.py) and writing the choice into a build file (into.py). Formulas and the calibration table:
docs/performance-model.md."""
