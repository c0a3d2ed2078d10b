"""The browser map editor of `adjutant pack edit` (bridge/commands/pack_edit.py)."""
