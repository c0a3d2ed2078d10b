"""The bridge between VASSAL files and the rules engine, in wings (docs/architecture.md, "bridge in wings").

A file becomes a plan in one hall, `bridge.pipeline`; each wing around it has one concern:
`mapping` (VASSAL pieces -> rules position), `reports` (what a person reads), `writeback` (plan -> VASSAL
files), `web` (servers, protocol, pages), `daemon` (the watcher and its worker), `cli` (the command line),
and `common` (the JSON header and the error log every wing may use). Imports point down only:
cli -> daemon -> web/writeback/reports -> pipeline -> mapping -> common (tests/test_layers.py).
"""

__version__ = "0.1.0"
