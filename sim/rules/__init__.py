"""Readable reference rules of each game: the definition every kernel, enumerator and DP is checked against."""
