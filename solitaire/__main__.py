"""``python -m solitaire``: the ``solitaire`` command."""
from solitaire.cli import run

if __name__ == "__main__":
    run()
