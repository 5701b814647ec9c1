"""Packaged data of the twin: defaults with sources, the built-in example platform."""
