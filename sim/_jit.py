"""The one place where numba options are set (STUMPY style): every kernel uses :func:`jit`."""
import numba

#: GIL released (so joblib threads run kernels in parallel), cached on disk.
JIT_OPTIONS = dict(nogil=True, cache=True, boundscheck=False, fastmath=False)


def jit(func=None, **overrides):
    """``numba.njit`` with the project's options."""
    options = {**JIT_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
