"""One module per `adjutant` subcommand; each exposes `register(subparsers)`."""
