"""Allow `python -m bridge` as an alias of the `adjutant` console script."""

from bridge.cli.main import main

raise SystemExit(main())
