"""A plan's steps -> VASSAL commands and files: the continuation log and the save with the moves made.

May import `bridge.pipeline`, `bridge.mapping` and `bridge.common`; never the reports, the servers, the
daemon or the command line. `module_patches.extension` is handed what it needs from here by its caller.
"""
