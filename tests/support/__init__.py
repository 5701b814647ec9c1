"""Test support shared by tests and benchmarks: data generators, server harnesses, browser checks.

Not part of the installed package (issue 15): import it as `tests.support.<module>`.
"""
