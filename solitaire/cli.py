"""The ``solitaire`` console command.

User mistakes (bad options, invalid decks, unknown variants, files that are not ours) end with one
line on stderr and exit status 2, with nothing on stdout; a results store that cannot be written
(disk full, no permission) ends with one line and exit status 1, the last checkpoint kept. SIGINT
(Ctrl-C) and SIGTERM stop a run between two chunks, save its checkpoint and say so in one line
(exit status 130 and 143). A traceback means a bug.
"""
from __future__ import annotations

import sys

import click

from sim.errors import UsageError
from sim.interrupts import Interrupted, handling_signals

#: The subcommands: name -> (module of :mod:`solitaire.commands`, its command, the one-line help
#: ``solitaire --help`` shortens and shell completion shows). A command's module (and numba, scipy, matplotlib
#: with it) is imported only when that command runs or its own help is asked for, so that
#: ``solitaire --help`` and TAB completion of the command names answer at once. The short help is
#: written here for the same reason; tests/cli/test_cli_startup.py checks it against each command.
COMMANDS = {
    "exact": ("exact", "exact_command",
             "Count, over all (S*R)! deck orders, how many end with each score (exact integers)."),
    "export": ("export", "export_command",
             "Write a stored result as a tidy table (CSV, JSON or parquet)."),
    "odds": ("odds", "odds_command",
             "The odds from here: given the cards dealt so far, the probability of winning and the whole "
             "distribution of the final score over every order of the cards still to come, exact while few "
             "cards are left, simulated beyond."),
    "play": ("play", "play_command",
             "Play one deck order step by step: every card dealt, every removal (the matching pair and what it"
             " removed), the row after it, and the score."),
    "poison": ("poison", "poison_command",
             "Decide the runs that reach the iteration cap, and count poison sets."),
    "report": ("report", "report_command",
             "Write results/README.md and its figures from the results store."),
    "runs": ("runs", "runs_command",
             "List the results store: one table, a line per stored computation (date, kind, deck, variant, "
             "method, size, result, interval, name), then the runs still under way (resumable with the same "
             "command) with their progress."),
    "simulate": ("simulate", "simulate_command",
             "Estimate the win probability by playing uniformly shuffled games."),
    "solve": ("solve", "solve_command",
             "Decide best play: whether a deck order can be won (one pile left) by some sequence of legal "
             "moves: proved won (a winning line, checked by replay), proved lost (named by its proof) or open "
             "(the budget ran out first)."),
    "sweep": ("sweep", "sweep_command",
             "Win probability over suits x ranks, exact where the exact engine reaches (or the parity theorem "
             "decides: S and R both odd never win), simulated with 95% intervals elsewhere."),
    "validate": ("validate", "validate_command",
             "Compare the Monte Carlo engine with exact values on every small deck and variant (One-Handed "
             "Solitaire, or Prisoner's Patience under both move policies; Hand Solitaire has no exact score "
             "distribution and is refused)."),
}


def _show_version(ctx, _param, value):
    """``--version``: the package version and the commit of the code (a checkout's, or the one an
    installed wheel was built from)."""
    if not value or ctx.resilient_parsing:
        return
    from sim import provenance

    click.echo(f"solitaire {provenance.version()} (commit {provenance.git_commit()})")
    ctx.exit()


def _short_help(text: str, limit: int) -> str:
    """The first sentence of ``text``, cut at a word to at most ``limit`` characters with "..." (as
    click shortens a command's help in the list of commands)."""
    first = text.split(". ")[0].rstrip(".")
    if len(first) <= limit:
        return first
    words, out = first.split(), ""
    for word in words:
        if len(out) + len(word) + (1 if out else 0) + 3 > limit:
            break
        out += (" " if out else "") + word
    return out + "..."


class _LazyGroup(click.Group):
    """A group whose subcommands are imported on first use (see :data:`COMMANDS`)."""

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        if name not in self.commands:
            import importlib

            module, attr, _ = COMMANDS[name]
            self.add_command(getattr(importlib.import_module(f"{__package__}.commands.{module}"), attr), name)
        return self.commands[name]

    def format_commands(self, ctx, formatter):
        """The command list of ``--help`` from :data:`COMMANDS`, without importing a command."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)  # as click lays it out
        rows = [(name, _short_help(COMMANDS[name][2], limit)) for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def shell_complete(self, ctx, incomplete):
        """Complete the command names (and the group's options) without importing a command."""
        from click.shell_completion import CompletionItem

        items = [CompletionItem(name, help=COMMANDS[name][2]) for name in self.list_commands(ctx)
                 if name.startswith(incomplete)]
        return items + click.Command.shell_complete(self, ctx, incomplete)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog="Shell completion (bash; zsh and fish alike with zsh_source, fish_source): add "
                    "eval \"$(_SOLITAIRE_COMPLETE=bash_source solitaire)\" to ~/.bashrc. "
                    "Also runs as python -m solitaire.")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and the commit of the code, and exit.")
def cli():
    """How often are zero-player patience games won? Exact answers where they can be had,
    fast reproducible simulation where they can't.

    Games: one-handed (One-Handed Solitaire), hand (Hand Solitaire), prisoners (Prisoner's Patience),
    each on any deck of --suits x --ranks cards.
    """


def _fail(message: str, status: int = 2) -> int:
    sys.stdout.flush()
    sys.stderr.write(f"solitaire: error: {message}\n")
    return status


def _interrupted(exc: Interrupted | None) -> int:
    from sim.progress import end_line

    sys.stdout.flush()
    saved = f": {exc.saved}" if exc is not None and exc.saved else ""
    sys.stderr.write(f"{end_line()}solitaire: interrupted{saved}\n")
    return exc.exit_status if exc is not None else 130


def _compiling_notice() -> None:
    """Said once on stderr, on a terminal, when the first kernel is compiled (not loaded from the
    cache): the wait that follows is the first run's, and the figures reported leave it out
    (:mod:`sim.compiling`). Not said into a file or a pipe, where scripts read stderr's lines."""
    import os

    from sim.progress import end_line

    try:
        if not os.isatty(2):
            return
    except OSError:
        return
    sys.stderr.write(f"{end_line()}solitaire: compiling kernels (first run only)\n")
    sys.stderr.flush()


def main(argv=None) -> int:
    """Entry point: runs the CLI and maps user errors to one line and exit status 2."""
    if not hasattr(sys, "set_int_max_str_digits"):
        return _main(argv)
    # a seed may be any size and exact counts run to thousands of digits: both are read and printed
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return _main(argv)
    finally:
        sys.set_int_max_str_digits(limit)


def _main(argv) -> int:
    from sim import compiling

    compiling.announce_with(_compiling_notice)
    try:
        with handling_signals("solitaire"):
            rv = cli.main(args=argv, prog_name="solitaire", standalone_mode=False)
    except Interrupted as exc:
        return _interrupted(exc)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help())
        return 0
    except click.UsageError as exc:  # bad option, missing argument, unknown subcommand
        return _fail(" ".join(exc.format_message().split()))
    except click.ClickException as exc:
        return _fail(" ".join(exc.format_message().split()))
    except UsageError as exc:
        return _fail(" ".join(str(exc).split()), getattr(exc, "exit_status", 2))
    except (click.exceptions.Abort, KeyboardInterrupt):  # Ctrl-C outside handling_signals
        return _interrupted(None)
    return rv if isinstance(rv, int) else 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
