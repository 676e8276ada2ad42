"""One module per subcommand; :mod:`solitaire.cli` registers them."""
