"""Errors that mean "the user asked for something invalid".

The CLI turns a :class:`UsageError` into a one-line message on stderr and exit status 2 (1 for a
:class:`WriteError`); anything else is a bug and keeps its traceback.
"""


class UsageError(ValueError):
    """Invalid input from the user (bad deck, unknown variant, deck too large for a method...).

    The message is one line that says what is wrong and what to do instead.
    """


class WriteError(UsageError):
    """A file could not be written (disk full, no permission, a read-only file system): not a user
    mistake, so the CLI prints its one line with exit status 1. Nothing half-written is left."""

    exit_status = 1
