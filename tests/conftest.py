"""Test-wide settings: every graph the suite optimizes is verified before and after each pass."""

from tensortrace.passes import pipeline

pipeline.DEBUG = True
