"""numba's cache stamps of pokerlab's kernels cover every kernel source file
(:mod:`pokerlab._kernel_cache`): a kernel that inlines a helper of another file is compiled
again when only that helper changes."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pokerlab
from pokerlab import _kernel_cache as kc
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector import _walk_batches as B


def _stamp(dispatcher) -> object:
    return dispatcher._cache._cache_file._source_stamp


def test_the_stamps_of_pokerlab_kernels_carry_the_digest() -> None:
    assert kc.installed()
    for kernel in (K.cfr_iterations, K.traverse, K.walk, B.best_response_pair):
        stamp = _stamp(kernel)
        assert isinstance(stamp, tuple) and stamp[1] == kc.kernels_digest()
    names = {p.relative_to(Path(pokerlab.__file__).parent).as_posix() for p in kc.kernel_sources()}
    # the vector pass's inlined helpers, in other files than the kernel
    assert {
        "tree/vector/_kernels.py",
        "tree/vector/_node_kernels.py",
        "tree/vector/_chance_kernels.py",
        "tree/_showdown.py",
    } <= names
    assert "cli/main.py" not in names  # files without numba do not invalidate the kernels


def test_a_change_to_a_helper_alone_changes_the_digest(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    src = Path(pokerlab.__file__).parent
    for rel in ("tree/_showdown.py", "tree/vector/_kernels.py", "errors.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src / rel, root / rel)
    before = kc.sources_digest(root)
    assert before == kc.sources_digest(root)
    helper = root / "tree/_showdown.py"
    helper.write_text(helper.read_text() + "\n# an edit\n")
    assert kc.sources_digest(root) != before
    plain = root / "errors.py"  # no numba: not part of the digest
    after = kc.sources_digest(root)
    plain.write_text(plain.read_text() + "\n# an edit\n")
    assert kc.sources_digest(root) == after


def test_functions_of_other_packages_keep_numba_s_stamp(tmp_path: Path) -> None:
    mod = tmp_path / "elsewhere_kernels.py"
    mod.write_text("from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("elsewhere_kernels", mod)
    module = importlib.util.module_from_spec(spec)
    sys.modules["elsewhere_kernels"] = module
    try:
        spec.loader.exec_module(module)
        stamp = _stamp(module.twice)
        assert not (
            isinstance(stamp, tuple) and len(stamp) == 2 and stamp[1] == kc.kernels_digest()
        )
        assert module.twice(21) == 42
    finally:
        del sys.modules["elsewhere_kernels"]
