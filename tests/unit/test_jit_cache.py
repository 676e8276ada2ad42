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
    assert Path(numba.config.CACHE_DIR).name == source_fingerprint()
    assert Path(numba.config.CACHE_DIR).parent.name == "solitaire-numba"


def test_stale_fingerprints_are_removed(tmp_path):
    current, recent, old = (tmp_path / name for name in ("current", "recent", "old"))
    for path in (current, recent, old):
        path.mkdir()
    long_ago = time.time() - (STALE_DAYS + 1) * 86400
    os.utime(old, (long_ago, long_ago))
    jit_module._remove_stale(current)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current", "recent"]
