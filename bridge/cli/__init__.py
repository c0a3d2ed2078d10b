"""The command line: `adjutant` and its subcommands (`main.py`, one module a command in `commands/`).

The top wing: may import every other wing; nothing imports it (but `python -m bridge`/`adjutant`).
"""
