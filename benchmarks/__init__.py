"""``make bench``: speed and memory figures, printed; never asserted by the test suite."""
