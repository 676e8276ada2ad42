"""The store's two errors: a store that cannot be used, and one that could not be written."""
from __future__ import annotations

from ..errors import UsageError, WriteError


class StoreError(UsageError):
    """The store file cannot be used (damaged, not ours, other schema, unknown name)."""


class StoreWriteError(StoreError, WriteError):
    """The store could not be written (disk full, no permission): nothing was changed, the last
    checkpoint is kept. Not a user mistake, so the CLI exits with status 1."""

    exit_status = 1
