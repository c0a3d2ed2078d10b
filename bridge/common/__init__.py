"""What every wing may use: the JSON header every output starts with, the error log's one line.

Imports nothing of bridge/: the bottom of the wings.
"""
