"""Read and write VASSAL's own files (modules, extensions, saves, logs) exactly as VASSAL does."""
