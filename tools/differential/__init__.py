"""Differential tester: runs the same random op calls in TensorFlow and tapeflow and compares.

See README.md in this folder.
"""
