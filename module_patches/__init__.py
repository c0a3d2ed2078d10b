"""What Adjutant puts into VASSAL itself: generated modules, extensions and patches (built with lxml)."""
