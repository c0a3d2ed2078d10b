"""Static files of the pack editor page (a package so that they install with bridge)."""
