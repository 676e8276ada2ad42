"""Prisoner's Patience, exactly: score distributions of the fixed move policies over every deck order
(:mod:`exact.prisoners.distribution`) and best play decided by search (:mod:`exact.prisoners.solver`)."""
