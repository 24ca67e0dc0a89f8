"""Tests of the Kernel Tuner peer (standard-library unittest; no Kernel Tuner needed)."""
