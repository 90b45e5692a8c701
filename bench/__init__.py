"""collab's benchmark suite: ``python -m bench [--quick] [--only NAME]`` from the repo root.

Never run by pytest. Prints a table (metric, value, target, pass/miss) and writes every
sample to ``bench/results/latest.json``. See ``bench/run.py`` for the list of benches.
"""
