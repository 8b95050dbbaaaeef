"""Renderers registered by name, each by a module of this package that registers itself: the
``check`` report formats (``findings_*.py``) and the porting-report formats (``porting_*.py``)
are two registries of this one kind, so adding a format is adding one module."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

R = TypeVar("R", bound=Callable[..., str])


class Registry(Generic[R]):
    """The renderers of the modules named ``<prefix>*`` in this package, by format name."""

    def __init__(self, prefix: str, what: str) -> None:
        self.prefix = prefix
        self.what = what  # for the error on a name registered twice
        self.by_name: dict[str, R] = {}
        self._loaded = False

    def register(self, name: str) -> Callable[[R], R]:
        """Register the decorated renderer as format ``name``."""

        def register(render: R) -> R:
            if name in self.by_name:
                raise ValueError(f"{self.what} {name!r} is registered twice")
            self.by_name[name] = render
            return render

        return register

    def load(self) -> dict[str, R]:
        """Import every module of the registry once, so that each format registers itself."""
        if not self._loaded:
            for mod in pkgutil.iter_modules([str(Path(__file__).parent)]):
                if mod.name.startswith(self.prefix):
                    importlib.import_module(f"{__package__}.{mod.name}")
            self._loaded = True
        return self.by_name
