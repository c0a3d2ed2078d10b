"""The bridge between VASSAL files and the rules engine: the CLI, mapping, pipeline, daemon and overlay."""

__version__ = "0.1.0"
