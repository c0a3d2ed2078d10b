"""The overlay page (static HTML/CSS/JS served by `adjutant watch`); a package only so installs ship it."""
