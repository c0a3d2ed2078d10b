"""VASSAL pieces -> the rules' position, and the module's own places (hexes, zones, insets).

Reads the pack's `vassal.toml`, the module's grids (`vassal_parser`) and the rules' packs; imports only
`bridge.common` of bridge/. The pipeline, the reports, the editor and the write-back build on it.
"""
