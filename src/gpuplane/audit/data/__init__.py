"""Data files of the audit (facts with sources)."""
