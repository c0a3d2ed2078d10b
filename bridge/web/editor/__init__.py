"""The browser map editor of `adjutant pack edit` (bridge/cli/commands/pack_edit.py)."""
