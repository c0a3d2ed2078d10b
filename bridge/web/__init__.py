"""The servers on 127.0.0.1, their websocket protocol and the pages (overlay, map editor).

May import `bridge.reports`, `bridge.pipeline`, `bridge.mapping` and `bridge.common`; never the daemon,
the write-back or the command line (the daemon hands the server what to publish).
"""
