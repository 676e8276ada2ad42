"""numba kernels, each beside the reference rules it must agree with (``sim/rules``)."""
