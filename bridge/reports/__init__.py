"""What a person reads: a plan as a PBEM report, a log's timeline, a pack's coverage.

May import `bridge.pipeline`, `bridge.mapping` and `bridge.common`; never the write-back, the servers, the
daemon or the command line.
"""
