"""The kernels' disk cache is keyed by the source of every kernel module (``sim/_jit.py``): numba alone
would keep running a cached kernel after a jitted helper it calls, defined in another file, changed."""
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numba

import sim._jit as jit_module
from sim._jit import STALE_DAYS, cache_dir, source_fingerprint

JIT_SOURCE = Path(jit_module.__file__)


def _helper(root: Path, returns: int) -> None:
    (root / "exact" / "helper.py").write_text(textwrap.dedent(f"""
        from sim._jit import jit

        @jit
        def helper(x):
            return x + {returns}
        """))


def _tree(root: Path, helper_returns: int) -> None:
    """A package tree like the project's: ``exact/caller.py``'s kernel calls ``exact/helper.py``'s."""
    (root / "sim").mkdir(parents=True, exist_ok=True)
    (root / "exact").mkdir(exist_ok=True)
    (root / "sim" / "__init__.py").write_text("")
    shutil.copy(JIT_SOURCE, root / "sim" / "_jit.py")
    (root / "exact" / "__init__.py").write_text("")
    _helper(root, helper_returns)
    (root / "exact" / "caller.py").write_text(textwrap.dedent("""
        from sim._jit import jit
        from exact.helper import helper

        @jit
        def caller(x):
            return helper(x) * 10
        """))


def _run(root: Path) -> int:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run([sys.executable, "-c", "from exact.caller import caller; print(caller(0))"],
                          cwd=root, env=env, capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_changed_helper_in_another_file_is_compiled_again(tmp_path):
    _tree(tmp_path, helper_returns=1)
    assert _run(tmp_path) == 10
    assert list((tmp_path / "__pycache__" / "solitaire-numba").rglob("*.nbi"))  # it was cached
    _helper(tmp_path, returns=2)  # caller.py untouched (numba alone would load its cached code)
    assert _run(tmp_path) == 20


def test_fingerprint_follows_every_kernel_file(tmp_path):
    _tree(tmp_path, helper_returns=1)
    first = source_fingerprint(tmp_path)
    assert source_fingerprint(tmp_path) == first
    _helper(tmp_path, returns=3)
    second = source_fingerprint(tmp_path)
    assert second != first
    (tmp_path / "exact" / "new.py").write_text("")  # a new module counts too
    assert source_fingerprint(tmp_path) != second
    (tmp_path / "README.md").write_text("x")  # outside the kernel packages: no change
    assert cache_dir(tmp_path, base="/b") == Path("/b/solitaire-numba") / source_fingerprint(tmp_path)


def test_this_process_uses_the_fingerprinted_cache():
    from sim.rng import chunk_states  # noqa: F401 (decorates the project's kernels)

    assert jit_module.CACHE_DIR.name == source_fingerprint()
    assert jit_module.CACHE_DIR.parent.name == "solitaire-numba"
    assert numba.config.CACHE_DIR == os.environ.get("NUMBA_CACHE_DIR", "")  # numba's setting untouched


def test_a_users_cached_function_stays_out_of_the_projects_cache(tmp_path):
    """Importing the package changes nothing for the user's own ``@numba.njit(cache=True)`` functions:
    they are cached where numba caches them (beside their source), the project's kernels in its folder."""
    (tmp_path / "users_module.py").write_text(textwrap.dedent("""
        import numba

        @numba.njit(cache=True)
        def users_function(x):
            return x * 3
        """))
    code = textwrap.dedent("""
        import numba, sim.rng, sim._jit as j
        from users_module import users_function
        print(users_function(2), numba.config.CACHE_DIR == '', j.CACHE_DIR)
        print(users_function._cache._cache_path)
        print(sim.rng.chunk_states.__module__ and [d for d in vars(sim.rng).values()
              if hasattr(d, '_cache')][0]._cache._cache_path)
        """)
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(JIT_SOURCE.parent.parent)])
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=True)
    first, users_path, kernel_path = done.stdout.splitlines()
    value, untouched, project_cache = first.split(" ", 2)
    assert value == "6" and untouched == "True"
    assert Path(users_path) == tmp_path / "__pycache__"
    assert list((tmp_path / "__pycache__").glob("users_module.users_function-*.nbi"))
    assert Path(kernel_path).is_relative_to(Path(project_cache))
    assert not list(Path(project_cache).rglob("users_module*"))


def test_stale_fingerprints_are_removed(tmp_path):
    current, recent, old = (tmp_path / name for name in ("current", "recent", "old"))
    for path in (current, recent, old):
        path.mkdir()
    long_ago = time.time() - (STALE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    jit_module._remove_stale(current)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current", "recent"]
