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

from .commands.exact import exact_command
from .commands.odds import odds_command
from .commands.play import play_command
from .commands.poison import poison_command
from .commands.report import report_command
from .commands.runs import runs_command
from .commands.simulate import simulate_command
from .commands.solve import solve_command
from .commands.sweep import sweep_command
from .commands.validate import validate_command


def _show_version(ctx, _param, value):
    """``--version``: the package version and the commit of the code (a checkout's, or the one an
    installed wheel was built from)."""
    if not value or ctx.resilient_parsing:
        return
    from sim import provenance

    click.echo(f"solitaire {provenance.version()} (commit {provenance.git_commit()})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_show_version,
              help="Show the version and the commit of the code, and exit.")
def cli():
    """How often are zero-player patience games won? Exact answers where they can be had,
    fast reproducible simulation where they can't.

    Games: one-handed (One-Handed Solitaire), hand (Hand Solitaire), prisoners (Prisoner's Patience),
    each on any deck of --suits x --ranks cards.
    """


COMMANDS = [simulate_command, exact_command, validate_command, sweep_command, runs_command, poison_command, report_command, solve_command,
            play_command, odds_command]
for _command in COMMANDS:
    cli.add_command(_command)


def _fail(message: str, status: int = 2) -> int:
    sys.stdout.flush()
    sys.stderr.write(f"solitaire: error: {message}\n")
    return status


def _interrupted(exc: Interrupted | None) -> int:
    sys.stdout.flush()
    saved = f": {exc.saved}" if exc is not None and exc.saved else ""
    sys.stderr.write(f"solitaire: interrupted{saved}\n")
    return exc.exit_status if exc is not None else 130


def main(argv=None) -> int:
    """Entry point: runs the CLI and maps user errors to one line and exit status 2."""
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
