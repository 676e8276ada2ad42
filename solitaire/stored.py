"""A computation made of parts, checkpointed in a results store's journal, resumed, and stored once.

``poison``'s random decks (chunks of decks) and ``solve --decks`` (one deck at a time) both sum a
*tally* over their parts. :func:`run_stored` runs such a computation with its tally saved in the
store's journal (:meth:`sim.store.ResultsStore.write_parts`: at most every ``checkpoint_seconds``,
and when the run stops: a signal, an error), so that a stopped computation resumes from its next
part when the same command is run again and ends with the result an uninterrupted one gives. A
finished one with the same identity is served from the store, not computed and stored again; two
processes asking for the same one take turns (the run's lock), and the second is served the first
one's record. SIGINT and SIGTERM stop it between two parts (:mod:`sim.interrupts`), and the CLI
prints one line saying what was saved.
"""
from __future__ import annotations

import time

from sim import interrupts
from sim.defaults import DEFAULT_CHECKPOINT_SECONDS  # the interval of every checkpointed run, one value
from sim.store import StoreWriteError, run_key


def run_stored(store, identity: dict, *, what: str, total: int, unit: str, done, compute, from_record,
               name: str, resume: bool = True, checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS,
               notify=None):
    """Run ``compute`` with its progress checkpointed in ``store`` and its result stored there once.

    Parameters
    ----------
    store : :class:`sim.store.ResultsStore`, already checked writable
    identity : what makes two computations the same (resumed, or served from the store); its ``seed``
        is a number (drawn by the caller when none was given)
    what : what the messages call it ("classification", "best-play run")
    total, unit : the number of parts and what they are ("chunks", "decks")
    done : ``done(tally)``, the number of parts a tally has counted
    compute : ``compute(resume_from, on_part)`` returns the finished result; ``resume_from`` is the
        saved tally (None: start from the first part) and ``on_part(tally)`` must be called after
        every part with the tally so far (it checkpoints, and raises
        :class:`~sim.interrupts.Interrupted` after a signal)
    from_record : rebuilds a result from its stored record
    name : the result's name in the store (:func:`sim.store.new_name`)
    resume : False discards the saved progress and starts again (a stored result is still served)
    notify : ``notify(message)`` for the one-line messages (served, resuming, waiting)

    Returns the result, whose provenance names its record (``stored_as``) and ``run_key``.
    """
    seed = identity["seed"]
    with store.run_lock(identity, on_wait=notify):
        found = store.find_run(identity)
        if found is not None:
            if notify:
                notify(f"this {what} (seed {seed}) is already in {store.path} as {found}: shown from there")
            return from_record(store.load(found))
        saved = store.load_parts(identity) if resume else {}
        tally = saved.get("tally") if saved else None
        if tally is not None and notify:
            notify(f"resuming the unfinished {what} with seed {seed}: {done(tally)} of {total} {unit} already done")
        state = {"tally": tally, "saved": done(tally) if tally is not None else 0, "last_write": time.monotonic()}

        def write():
            store.write_parts(identity, {"tally": state["tally"]}, done=done(state["tally"]), total=total, unit=unit)
            state["saved"], state["last_write"] = done(state["tally"]), time.monotonic()

        def on_part(tally):
            state["tally"] = tally
            if time.monotonic() - state["last_write"] >= checkpoint_seconds and done(tally) < total:
                write()
            interrupts.check()  # a signal stops the computation here, between two parts

        try:
            with interrupts.deferred():
                result = compute(tally, on_part)
        except BaseException as exc:
            if state["tally"] is not None and done(state["tally"]) > state["saved"] and not isinstance(
                    exc, StoreWriteError):
                try:
                    write()
                except Exception:  # the original error says more; the last checkpoint is kept
                    pass
            if isinstance(exc, interrupts.Interrupted):
                exc.saved = f"{state['saved']} of {total} {unit} saved to {store.path}; run the same command to resume"
            raise
        result.provenance.update(run_key=run_key(identity), store_path=str(store.path), stored_as=name, seed=seed)
        store.commit(result, identity, name=name)
        return result
