"""Allow `python -m adjutant` as an alias of the `adjutant` console script."""

from bridge.cli.main import main

raise SystemExit(main())
