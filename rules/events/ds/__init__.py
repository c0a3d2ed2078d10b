"""Dai Senso! (Pacific) Conditional Events, rule 16, on the shared engine (docs/engine-api.md).

Why a sub-package: the engine auto-imports every module under `rules.events`, so DS-only events
register themselves here; events shared with Totaler Krieg! are the shared implementations with DS pack
parameters (rules/packs/ds/events.toml), never copies.
"""
