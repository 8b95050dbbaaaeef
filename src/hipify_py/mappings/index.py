"""The mapping tables' data model: an entry, the index of entries by CUDA name, and the lazy
row store a cached index is read from.  Its own module, importing nothing of the package, so
loading (``load``), validating (``schema``) and reading (``audit``, ``provenance``) an index
all depend on it and it on none of them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

KINDS = ("function", "type", "enum", "macro", "header", "device_function", "namespace")
STATUSES = ("supported", "unsupported", "deprecated", "removed", "experimental")


@dataclass(frozen=True, slots=True)
class Entry:
    cuda: str
    hip: str | None  # None: no HIP equivalent
    kind: str  # one of KINDS
    # API family: runtime, driver, device, rtc, complex, blas, sparse, solver, rand, fft, dnn,
    # cub, nccl, pytorch, ...
    family: str
    status: str  # one of STATUSES (HIP side)
    roc: str | None = None  # rocBLAS/rocSPARSE/rocRAND/rocSOLVER/MIOpen name, for --roc
    section: str = ""
    cuda_added: str | None = None
    cuda_deprecated: str | None = None
    cuda_removed: str | None = None
    hip_added: str | None = None
    hip_deprecated: str | None = None
    hip_removed: str | None = None
    source: str = ""  # the YAML file (or user rule file) the entry came from
    # Added with the YAML tables (issue 3): the C (changed) columns, the E (experimental) HIP
    # version, and a free-text note (e.g. why a name is kept, or how a macro's value differs).
    cuda_changed: str | None = None
    hip_changed: str | None = None
    hip_experimental: str | None = None
    note: str | None = None
    # The table's U column: CUDA versions whose form of the API the HIP name does not cover
    # (e.g. "13.0" for cudaMemPrefetchAsync, whose CUDA 13 signature takes a cudaMemLocation).
    hip_unsupported_cuda: str | None = None
    # The ROCm release whose headers were checked to declare ``hip`` (header_check.yaml rows).
    hip_checked: str | None = None
    # The name to emit for --target-rocm older than ``hip_legacy_until`` (hipBLAS 2.x ``*_v2``
    # names, hipHostMalloc where hipHostAlloc had no typed-pointer overload yet).
    hip_legacy: str | None = None
    hip_legacy_until: str | None = None


class RowStore:
    """Entry field tuples, turned into ``Entry`` objects only when looked up (fast start-up)."""

    __slots__ = ("rows", "objs")

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self.rows = rows
        self.objs: list[Entry | None] = [None] * len(rows)

    def entry(self, i: int) -> Entry:
        obj = self.objs[i]
        if obj is None:
            obj = self.objs[i] = Entry(*self.rows[i])
        return obj

    def all(self) -> tuple[Entry, ...]:
        return tuple(self.entry(i) for i in range(len(self.rows)))


class LazyEntries(Mapping[str, Entry]):
    """Read-only name -> Entry mapping over one or more RowStores; builds entries on access."""

    __slots__ = ("_refs",)

    def __init__(self, refs: dict[str, tuple[RowStore, int]]) -> None:
        self._refs = refs

    def __getitem__(self, name: str) -> Entry:
        store, i = self._refs[name]
        return store.entry(i)

    def get(self, name: str, default: Any = None) -> Any:
        ref = self._refs.get(name)
        return default if ref is None else ref[0].entry(ref[1])

    def __contains__(self, name: object) -> bool:
        return name in self._refs

    def known(self, names: AbstractSet[str]) -> dict[str, Entry]:
        """The entries of those of ``names`` that are mapped (a set intersection in C, so a
        file's few hundred names cost next to nothing)."""
        refs = self._refs
        return {name: refs[name][0].entry(refs[name][1]) for name in refs.keys() & names}

    def __iter__(self) -> Iterator[str]:
        return iter(self._refs)

    def __len__(self) -> int:
        return len(self._refs)

    def hip_names(self) -> Iterator[tuple[str, str | None]]:
        """(CUDA name, HIP name) of every entry, read from the rows: no entry is built."""
        for name, (store, i) in self._refs.items():
            obj = store.objs[i]
            yield name, obj.hip if obj is not None else store.rows[i][1]

    def merged(self, other: Mapping[str, Entry]) -> LazyEntries:
        """A new mapping where ``other``'s names win."""
        refs = dict(self._refs)
        if isinstance(other, LazyEntries):
            refs.update(other._refs)
        else:
            store = RowStore([])
            for name, entry in other.items():
                store.rows.append(())
                store.objs.append(entry)
                refs[name] = (store, len(store.rows) - 1)
        return LazyEntries(refs)


class MappingIndex:
    """O(1) lookup of a CUDA identifier or header name.

    ``entries``/``headers`` hold the active winner per CUDA name.  ``all_entries`` keeps every
    row of every loaded file (a CUDA name listed in two tables appears twice there).
    ``optional`` holds opt-in families (``enabled: auto`` files, e.g. pytorch) that are not
    active yet: ``with_families(("pytorch",))`` returns an index with them merged in.
    """

    def __init__(
        self,
        entries: Mapping[str, Entry],
        headers: Mapping[str, Entry],
        *,
        all_entries: tuple[Entry, ...] | tuple[RowStore, ...] = (),
        optional: dict[str, tuple[Mapping[str, Entry], Mapping[str, Entry]]] | None = None,
    ) -> None:
        self.entries = entries
        self.headers = headers
        self._all = all_entries
        self.optional = optional or {}
        self._views: dict[tuple[str, ...], MappingIndex] = {}
        self._by_hip: dict[str, list[str]] | None = None

    @property
    def all_entries(self) -> tuple[Entry, ...]:
        """Every row of every loaded file, in load order (duplicates included)."""
        if self._all and isinstance(self._all[0], RowStore):
            self._all = tuple(e for store in self._all for e in store.all())  # type: ignore[union-attr]
        return self._all  # type: ignore[return-value]

    def get(self, name: str) -> Entry | None:
        return self.entries.get(name)

    def known(self, names: AbstractSet[str]) -> dict[str, Entry]:
        """Name -> entry for each of ``names`` that has one."""
        entries = self.entries
        if isinstance(entries, LazyEntries):
            return entries.known(names)
        return {name: entries[name] for name in entries.keys() & names}

    def header(self, include_path: str) -> Entry | None:
        return self.headers.get(include_path)

    def by_hip(self, hip: str) -> list[Entry]:
        """The entries whose HIP name is ``hip``, in table order (a HIP source's names are
        judged by what they are the HIP name of)."""
        if self._by_hip is None:
            entries = self.entries
            pairs = (
                entries.hip_names()
                if isinstance(entries, LazyEntries)
                else ((name, e.hip) for name, e in entries.items())
            )
            table: dict[str, list[str]] = {}
            for name, hip_name in pairs:
                if hip_name:
                    table.setdefault(hip_name, []).append(name)
            self._by_hip = table
        return [self.entries[name] for name in self._by_hip.get(hip, ())]

    @property
    def optional_families(self) -> tuple[str, ...]:
        return tuple(sorted(self.optional))

    def with_families(self, families: tuple[str, ...] | list[str]) -> MappingIndex:
        """This index with the given opt-in families enabled (their entries win)."""
        key = tuple(sorted(f for f in families if f in self.optional))
        if not key:
            return self
        view = self._views.get(key)
        if view is None:
            entries, headers = _merge(self.entries, {}), _merge(self.headers, {})
            rest = dict(self.optional)
            for family in key:
                fam_entries, fam_headers = rest.pop(family)
                entries = _merge(entries, fam_entries)
                headers = _merge(headers, fam_headers)
            view = MappingIndex(entries, headers, all_entries=self._all, optional=rest)
            self._views[key] = view
        return view


def _merge(base: Mapping[str, Entry], top: Mapping[str, Entry]) -> Mapping[str, Entry]:
    if isinstance(base, LazyEntries):
        return base.merged(top)
    return {**base, **top}
