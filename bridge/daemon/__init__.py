"""The watcher and its worker: a folder's saves noticed, checked whole, planned, published.

May import `bridge.web`, `bridge.writeback`, `bridge.reports`, `bridge.pipeline`, `bridge.mapping` and
`bridge.common`; never the command line.
"""
