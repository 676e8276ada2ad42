"""Computations made of parts instead of chunks of games (a validation's cases, a ``poison``
classification's tally of its chunks of decks): their finished parts, kept in the journal as
``<run_key>.json`` until the computation is stored."""
from __future__ import annotations

import contextlib
import json
import os

from .. import provenance as _provenance
from ..seeds import seeds_from_json, seeds_to_json
from .codec import _plain
from .errors import StoreError
from .files import _fsync, _short
from .identity import family_key, run_key


class Parts:
    """The parts of unfinished computations, in the journal of :class:`sim.store.ResultsStore`."""

    def load_parts(self, identity: dict) -> dict:
        """The parts saved so far by an unfinished computation made of parts (a validation's cases):
        ``{key: JSON value}``, empty when there are none (or the computation is stored already)."""
        path = self.journal / f"{run_key(identity)}.json"
        if not path.exists() or self.find_run(identity) is not None:
            return {}
        try:
            return seeds_from_json(json.loads(path.read_text()))["parts"]
        except (OSError, ValueError, KeyError) as exc:
            raise StoreError(f"{path}: unreadable journal file ({_short(exc)}): remove it to start again") from None

    def write_parts(self, identity: dict, parts: dict, *, done: int | None = None, total: int | None = None,
                    unit: str = "parts") -> None:
        """Save the finished parts of a computation (replacing what was saved before), atomically,
        in its journal file; the cost does not depend on what the store holds. ``done`` of ``total``
        ``unit`` (e.g. 3 of 7 chunks) is what :meth:`unfinished_parts` and ``solitaire runs`` show."""
        path = self.journal / f"{run_key(identity)}.json"
        tmp = path.with_name(path.name + ".tmp")
        text = json.dumps(seeds_to_json({"identity": _plain(identity), "family": family_key(identity),
                                         "updated": _provenance.now(), "done": done if done is not None else len(parts),
                                         "total": total, "unit": unit, "parts": _plain(parts)}))
        try:
            self.journal.mkdir(parents=True, exist_ok=True)
            self._need_space(self.journal, len(text))
            tmp.write_text(text)
            _fsync(tmp)
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise self._write_failed(exc, "the journal of") from None

    def _parts_files(self):
        """``(key, content)`` of every unfinished computation made of parts (journal ``run-*.json``
        files whose computation is not stored yet; unreadable ones are skipped here and refused when
        that computation asks for them)."""
        files = sorted(self.journal.glob("run-*.json")) if self.journal.is_dir() else []
        finished = {r.get("provenance", {}).get("run_key") for _, r in self._records()} if files else set()
        for path in files:
            if path.stem in finished:
                continue
            try:
                content = seeds_from_json(json.loads(path.read_text()))
                content["identity"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            yield path.stem, content

    def unfinished_parts(self) -> list[dict]:
        """Computations made of parts under way (a ``poison`` classification's chunks, a validation's
        cases): identity, ``done`` of ``total`` ``unit``, last update."""
        rows = [{"run": key, **c["identity"], "done": c.get("done", len(c.get("parts", {}))), "total": c.get("total"),
                 "unit": c.get("unit", "parts"), "updated": c.get("updated", "")} for key, c in self._parts_files()]
        return sorted(rows, key=lambda r: r["updated"])
