"""The library's public surface: every public module declares ``__all__`` and every name in it resolves."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import pytest

import fairshare

# Modules without __all__ yet: they were being edited on other branches when __all__ was added everywhere else.
# Remove a module from this set when it gains __all__ (test_pending_modules_still_lack_all says when).
PENDING: set[str] = set()


def public_modules() -> list[str]:
    """``fairshare`` and every module under it with no component starting with an underscore."""
    names = [fairshare.__name__]
    for info in pkgutil.walk_packages(fairshare.__path__, prefix="fairshare."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def resolves(module, name: str) -> bool:
    """Whether ``name`` is an attribute of ``module`` or, in a package, one of its submodules."""
    if hasattr(module, name):
        return True
    if hasattr(module, "__path__"):
        return importlib.util.find_spec(f"{module.__name__}.{name}") is not None
    return False


MODULES = public_modules()


def test_the_walk_finds_the_library() -> None:
    for name in ("fairshare.learning.mmfl", "fairshare.games.shapley", "fairshare.seeding", "fairshare.metrics"):
        assert name in MODULES


@pytest.mark.parametrize("name", [m for m in MODULES if m not in PENDING])
def test_module_declares_all_and_every_name_resolves(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    missing = [n for n in exported if not resolves(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


def test_pending_modules_still_lack_all() -> None:
    done = sorted(m for m in PENDING if hasattr(importlib.import_module(m), "__all__"))
    assert not done, f"these modules now have __all__: remove them from PENDING in this test: {done}"


def test_packages_export_their_public_submodules() -> None:
    for name in MODULES:
        module = importlib.import_module(name)
        if not hasattr(module, "__path__"):
            continue
        subs = {i.name for i in pkgutil.iter_modules(module.__path__) if not i.name.startswith("_")}
        assert subs <= set(module.__all__), f"{name}.__all__ leaves out {sorted(subs - set(module.__all__))}"
