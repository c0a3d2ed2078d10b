"""The rules engine: a neutral game state, game data packs, and the conditional-event rules."""
