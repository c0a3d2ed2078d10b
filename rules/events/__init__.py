"""Event implementations. Each module registers functions with `rules.engine.event_impl`.

Modules are imported by `rules.engine.load_event_modules()`; the Dai Senso! events live in
`rules/events/ds/` or `rules/events/ds_*.py`.

`IMPL_MODULES` says which module registers each implementation, so a plan imports only the
modules its pack's events use (`load_event_modules(impls)`; issue 27: a small check of a TK pack
no longer imports the Dai Senso! and A World at War events). A new implementation is one line
here (and a module registering what one looks up by name, in `EXTRA_MODULES`);
tests/rules/test_event_index.py checks both against what the full walk registers and imports.
"""

# implementation name (a pack's `impl = "..."`) -> the module under rules.events that registers it
IMPL_MODULES: dict[str, str] = {
    "awaw_after_surrender": "awaw.after",
    "awaw_brp_grants": "awaw.grants",
    "awaw_japanese_participation": "awaw.effects",
    "awaw_russian_resistance": "awaw.resistance",
    "awaw_surrender_effects": "awaw.effects",
    "border_defense": "border_defense",
    "case_yellow": "case_yellow",
    "crisis_reinforcements": "allied_permanent",
    "ds_aid": "ds.aid",
    "ds_cabinet_dissolution": "ds.programs",
    "ds_chinese_surrender": "ds.settlements",
    "ds_colonial_liberation": "ds.programs",
    "ds_european_reserves": "ds.programs",
    "ds_forced_settlement": "ds.settlement",
    "ds_french_response": "ds.programs",
    "ds_garrison_check": "ds.garrison",
    "ds_internment": "ds.internment",
    "ds_japanese_concessions": "ds.settlement",
    "ds_release": "ds.programs",
    "ds_rises": "ds.rises",
    "ds_surrender": "ds.settlements",
    "france_rises": "allied_permanent",
    "french_liberation": "allied_minors",
    "internment": "internment",
    "lend_lease": "allied_permanent",
    "liberation": "allied_minors",
    "minor_conquest": "conquest",
    "minor_occupation": "occupation",
    "operation_avalanche": "allied_minors",
    "ostland_accord": "ostland",
    "reactivation": "allied_minors",
    "russia_rises": "allied_permanent",
    "white_star_hexes": "allied_permanent",
}

# Modules an implementation needs beside its own, because they register what it looks up by name:
# 16.1.2's occupation exceptions (`register_occupation_exception`; DS: showa_restoration).
EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "minor_occupation": ("ds.occupation",),
}
