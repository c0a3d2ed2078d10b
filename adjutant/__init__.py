"""`python -m adjutant`: the same command line as the `adjutant` script (bridge/cli/main.py)."""
