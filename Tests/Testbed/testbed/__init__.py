"""The test bed's driver, by concern: see ../umockdev-driver.py (the entry point) and steps.py (the verbs)."""
