"""Adjutant's command line and daemon: the bridge between VASSAL files and the rules engine."""
