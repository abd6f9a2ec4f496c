"""Trace-driven simulation: readers, runner and reports."""
