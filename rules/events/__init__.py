"""Event implementations. Each module registers functions with `rules.engine.event_impl`.

Modules are imported by `rules.engine.load_event_modules()`; the Dai Senso! events live in
`rules/events/ds/` or `rules/events/ds_*.py`.
"""
