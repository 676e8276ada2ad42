"""The one protocol every result record follows, whatever computed it.

A result is a frozen record with a ``kind`` (the store's name for what it is: ``"simulation"``,
``"exact"``, ``"poison"``, ...), a ``to_dict()`` that is its ``--json`` object and its stored content,
a ``from_record(record)`` that rebuilds it from that content (re-running its checks, so a damaged
record is refused), and a ``provenance`` dict (versions, commit, times, seeds). The results store,
the CLI's ``--json`` and the report all read the same record, so a derived statistic is computed
once, when the result is built.
"""
from __future__ import annotations

from typing import ClassVar, Protocol, runtime_checkable


@runtime_checkable
class Result(Protocol):
    """What the store, ``--json`` and the report rely on (see the module docstring)."""

    kind: ClassVar[str]
    provenance: dict

    def to_dict(self) -> dict:
        ...

    @classmethod
    def from_record(cls, record: dict) -> "Result":
        ...
