"""Load, validate and index the mapping YAML files.

The shipped tables are parsed once per process (``flow_lines`` reads their one-entry-per-line
form in a seventh of PyYAML's time).  Parsing and checking ~11,000 entries still takes about
0.2 s, so the compiled index is also cached on disk
(marshal of plain tuples) in ``$XDG_CACHE_HOME/hipify-py`` (or ``~/.cache/hipify-py``), keyed by
the sha256 of the YAML bytes and the schema version.  An unwritable cache dir is ignored.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from .index import Entry, LazyEntries, MappingIndex, RowStore, _merge
from .schema import SCHEMA_VERSION, MappingError, validate_file

__all__ = [
    "MappingError",
    "hip_name",
    "is_convertible",
    "load_index",
    "load_files",
    "needs_newer_hip",
    "no_hip_library",
    "tables_dir",
]

_FIELDS = tuple(f.name for f in dataclasses.fields(Entry))
_STATUS_RANK = {"supported": 0, "deprecated": 1, "experimental": 2, "removed": 3, "unsupported": 4}
USER_PRIORITY = 1_000_000  # user rule files always win over shipped ones


class ConversionOptions(Protocol):
    """What the lookups read of the conversion options: ``context.Options`` is one.  The
    tables sit below the context (which holds their index), so they name only these fields."""

    @property
    def roc(self) -> bool: ...
    @property
    def miopen(self) -> bool: ...
    @property
    def experimental(self) -> bool: ...
    @property
    def hip_data_types(self) -> bool: ...
    @property
    def target_rocm(self) -> tuple[int, ...]: ...
    @property
    def pytorch(self) -> bool | None: ...


@dataclasses.dataclass(frozen=True)
class RulesText:
    """A user mapping file already in memory (read and checked by ``user_mappings``), so it
    reaches worker processes without a temp file."""

    label: str
    data: bytes


# --------------------------------------------------------------------------- locating the data


def tables_dir() -> Path:
    """Directory holding the shipped ``*.yaml`` tables (installed or source checkout)."""
    env = os.environ.get("HIPIFY_PY_MAPPINGS_DIR")
    if env:
        return Path(env)
    try:
        import hipify_py._tables as tables  # the top-level mappings/ dir, mapped in pyproject

        candidate = Path(tables.__file__).parent
        if any(candidate.glob("*.yaml")):
            return candidate
    except (ImportError, TypeError):
        pass
    # Source checkout run with PYTHONPATH=src: <repo>/src/hipify_py/mappings/load.py
    return Path(__file__).resolve().parents[3] / "mappings"


def shipped_files() -> list[Path]:
    directory = tables_dir()
    found = sorted(directory.glob("*.yaml"))
    if not found:
        raise MappingError(f"{directory}: no mapping tables (*.yaml) found")
    return found


# --------------------------------------------------------------------------- parsing


@dataclasses.dataclass(frozen=True)
class _File:
    path: str
    family: str
    enabled: str
    priority: int
    rows: list[tuple[Any, ...]]  # Entry field tuples, in file order


def _parse(path: Path, data: bytes, *, user: bool) -> _File:
    import yaml  # imported lazily: warm start-ups read the marshal cache only

    from . import flow_lines  # (its patterns compile on import)

    label = str(path)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        doc = flow_lines.load(data, loader)
        if doc is None:
            doc = yaml.load(data, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise MappingError(f"{label}{where}: invalid YAML: {problem}") from None
    validate_file(doc, label)
    family = doc["family"]
    source = path.name if not user else label
    rows = []
    for raw in doc["entries"]:
        values = {"family": family, "section": "", "source": source}
        values.update({k: v for k, v in raw.items() if v is not None})
        values["source"] = source
        rows.append(tuple(map(values.get, _FIELDS)))
    priority = doc.get("priority", 0) + (USER_PRIORITY if user else 0)
    return _File(label, family, doc.get("enabled", "always"), priority, rows)


def _rank(files: Sequence[_File]) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    """Pick a deterministic winner per CUDA name; returns (all rows, compiled winner table).

    Order: higher file ``priority`` first (user rules > warp_sync overrides > extras > tables),
    then the better HIP status (supported > deprecated > experimental > removed > unsupported),
    then the earlier file (files sort by name), then the earlier row.  Later user files beat
    earlier ones (their priority grows with position).  Headers (kind ``header``) are indexed
    separately from identifiers; files with ``enabled: auto`` go to an opt-in overlay.
    """
    status_i, kind_i, cuda_i = (_FIELDS.index(n) for n in ("status", "kind", "cuda"))
    rows: list[tuple[Any, ...]] = []
    tables: dict[str, dict[str, tuple[tuple[int, int, int, int], int]]] = {"": {}}
    for file_no, f in enumerate(files):
        table = tables.setdefault(f.family if f.enabled == "auto" else "", {})
        for row_no, row in enumerate(f.rows):
            rows.append(row)
            key = (-f.priority, _STATUS_RANK[row[status_i]], file_no, row_no)
            name = row[cuda_i] if row[kind_i] != "header" else "\0h" + row[cuda_i]
            best = table.get(name)
            if best is None or key < best[0]:
                table[name] = (key, len(rows) - 1)
    compiled = {}
    for family, table in tables.items():
        ids = [(n, i) for n, (_, i) in table.items() if not n.startswith("\0h")]
        hdrs = [(n[2:], i) for n, (_, i) in table.items() if n.startswith("\0h")]
        compiled[family] = (ids, hdrs)
    return rows, compiled


def _materialize(
    rows: list[tuple[Any, ...]], compiled: dict[str, Any], base: MappingIndex | None = None
) -> MappingIndex:
    store = RowStore(rows)

    def pick(pairs: list[tuple[str, int]]) -> LazyEntries:
        return LazyEntries({n: (store, i) for n, i in pairs})

    ids, hdrs = compiled[""]
    entries: Mapping[str, Entry] = pick(ids)
    headers: Mapping[str, Entry] = pick(hdrs)
    optional: dict[str, tuple[Mapping[str, Entry], Mapping[str, Entry]]] = {
        f: (pick(a), pick(b)) for f, (a, b) in sorted(compiled.items()) if f
    }
    stores: tuple[RowStore, ...] = (store,)
    if base is not None:  # overlay (user rules) on a shipped index
        entries = _merge(base.entries, entries)
        headers = _merge(base.headers, headers)
        merged = dict(base.optional)
        for fam, (e, h) in optional.items():
            old = merged.get(fam)
            merged[fam] = (_merge(old[0], e), _merge(old[1], h)) if old else (e, h)
        optional = merged
        base_all = base._all
        if base_all and isinstance(base_all[0], RowStore):
            stores = tuple(base_all) + stores  # type: ignore[arg-type]
        else:
            stores = (RowStore([()] * len(base_all)),) + stores
            stores[0].objs = list(base_all)  # type: ignore[assignment, arg-type]
    return MappingIndex(entries, headers, all_entries=stores, optional=optional)


def _build(files: Sequence[_File], base: MappingIndex | None = None) -> MappingIndex:
    rows, compiled = _rank(files)
    return _materialize(rows, compiled, base)


def load_files(paths: Iterable[Path | RulesText], *, user: bool = False) -> list[_File]:
    out = []
    for path in paths:
        if isinstance(path, RulesText):
            out.append(_parse(Path(path.label), path.data, user=user))
            continue
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise MappingError(f"{path}: cannot read mapping file: {exc.strerror}") from None
        out.append(_parse(Path(path), data, user=user))
    return out


# --------------------------------------------------------------------------- on-disk cache


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hipify-py"


def _cache_key(paths: Sequence[Path], blobs: Sequence[bytes]) -> str:
    h = hashlib.sha256()
    h.update(f"schema={SCHEMA_VERSION};fields={','.join(_FIELDS)};".encode())
    h.update(f"py={sys.version_info[:2]};".encode())
    for path, blob in zip(paths, blobs, strict=True):
        h.update(path.name.encode() + b"\0" + hashlib.sha256(blob).digest())
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def _shipped_sources() -> tuple[list[Path], list[bytes], str]:
    """The shipped tables' paths and bytes, and their key (read once per process)."""
    paths = shipped_files()
    blobs = [p.read_bytes() for p in paths]
    return paths, blobs, _cache_key(paths, blobs)


def tables_fingerprint() -> str:
    """The key of the shipped tables' content (the per-file result cache keys on it too)."""
    return _shipped_sources()[2]


def _load_shipped(use_cache: bool = True) -> MappingIndex:
    paths, blobs, key = _shipped_sources()
    use_cache = use_cache and cache_enabled()
    cache_file = _index_cache_file(key)
    if use_cache:
        try:
            rows, compiled = marshal.loads(cache_file.read_bytes())
            return _materialize(rows, compiled)
        except (OSError, ValueError, EOFError, TypeError):
            pass
    rows, compiled = _rank([_parse(p, b, user=False) for p, b in zip(paths, blobs, strict=True)])
    if use_cache:
        try:
            from ..files import replace_cache_file  # a cold start only

            cache_file.parent.mkdir(parents=True, exist_ok=True)
            replace_cache_file(cache_file, marshal.dumps((rows, compiled)))
        except (OSError, ValueError):
            pass
    return _materialize(rows, compiled)


def cache_enabled() -> bool:
    """Whether hipify-py's caches (the mapping index, the per-file results) are used at all:
    ``HIPIFY_PY_NO_CACHE=1`` turns both off."""
    return os.environ.get("HIPIFY_PY_NO_CACHE") != "1"


def _index_cache_file(key: str) -> Path:
    return cache_dir() / f"index-{key[:32]}.marshal"


@functools.lru_cache(maxsize=1)
def _shipped() -> MappingIndex:
    """The shipped index; from its cache, loaded on first use.  Built from the YAML tables it
    is loaded now, so an error in a table (a contributor's new row) is reported at start-up."""
    if cache_enabled() and _index_cache_file(_shipped_sources()[2]).is_file():
        return _Deferred(_load_shipped)
    return _load_shipped()


class _Deferred(MappingIndex):
    """The shipped index, loaded from its cache on first use: a run whose every file comes
    from the per-file cache never looks a name up, and loading the index is a sixth of such a
    run's start-up."""

    def __init__(self, load: Callable[[], MappingIndex]) -> None:
        self._load = load  # the parent's attributes arrive with the loaded index

    def __getattr__(self, name: str) -> Any:
        load = self.__dict__.pop("_load", None)
        if load is None:
            raise AttributeError(name)
        self.__dict__.update(load().__dict__)
        return getattr(self, name)


def clear_caches() -> None:
    """Forget the per-process caches (tests)."""
    _shipped.cache_clear()
    _shipped_sources.cache_clear()
    _indexes.clear()


_indexes: dict[tuple[Any, ...], MappingIndex] = {}


def load_index(
    options: ConversionOptions | None = None, extra_files: Sequence[Path | RulesText] = ()
) -> MappingIndex:
    """The mapping index: shipped tables + ``extra_files`` (user rules, which win).

    ``options.pytorch`` True enables the opt-in pytorch family; None/False leaves it in
    ``index.optional`` (use ``index.with_families(("pytorch",))`` per file).
    """
    stamps: list[tuple[str, str | int, int]] = []
    for p in extra_files:
        if isinstance(p, RulesText):
            stamps.append((p.label, hashlib.sha256(p.data).hexdigest(), 0))
            continue
        try:
            st = Path(p).stat()
            stamps.append((str(Path(p).resolve()), st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append((str(p), 0, 0))
    pytorch = bool(options is not None and options.pytorch)
    key = (pytorch, tuple(stamps))
    index = _indexes.get(key)
    if index is None:
        index = _shipped()
        if extra_files:
            user_files = load_files(extra_files, user=True)
            for n, f in enumerate(user_files):
                user_files[n] = dataclasses.replace(f, priority=f.priority + n)
            index = _build(user_files, base=index)
        if pytorch:
            index = index.with_families(("pytorch",))
        _indexes[key] = index
    return index


# --------------------------------------------------------------------------- per-entry helpers


def hip_name(entry: Entry, options: ConversionOptions) -> str | None:
    """The name to emit: the roc*/MIOpen name under --roc (or --miopen for cuDNN), else hip.

    --use-hip-data-types keeps HIP's library-neutral ``hipDataType`` (and its ``HIP_R_*``/
    ``HIP_C_*`` values) even under --roc, as hipify-clang's option of that name does.  The HIP
    name follows --target-rocm where it changed between releases (see ``_for_target``).
    """
    if options.hip_data_types and _is_hip_data_type(entry.hip):
        return entry.hip
    if entry.roc:
        if options.roc or (options.miopen and entry.family == "dnn"):
            return entry.roc
    return _for_target(entry, options)


def _for_target(entry: Entry, options: ConversionOptions) -> str | None:
    """``hip``, or ``hip_legacy`` when --target-rocm is older than ``hip_legacy_until``."""
    if (
        entry.hip_legacy
        and entry.hip_legacy_until
        and _target(options) < _version(entry.hip_legacy_until)
    ):
        return entry.hip_legacy
    return entry.hip


# Families whose HIP-side library is in no ROCm release hipify-py targets: their ``hip`` names
# are never emitted; the roc-side name is, under the option that selects it.
NO_HIP_LIBRARY = {"dnn": "hipDNN is not part of ROCm 7.2; --miopen converts to MIOpen"}


def no_hip_library(entry: Entry, options: ConversionOptions | None = None) -> str | None:
    """Why the entry's HIP library is unavailable (None when it is, or a roc name is chosen)."""
    reason = NO_HIP_LIBRARY.get(entry.family)
    if reason is None:
        return None
    if entry.roc and options is not None and (options.roc or options.miopen):
        return None
    return reason


def _is_hip_data_type(name: str | None) -> bool:
    return name is not None and (name == "hipDataType" or name.startswith(("HIP_R_", "HIP_C_")))


def is_convertible(entry: Entry, options: ConversionOptions) -> bool:
    """supported/deprecated: yes; experimental: only with --experimental; others: no.

    Names the targeted ROCm does not have yet (``needs_newer_hip``, reported by HZ302) and
    names of a library ROCm does not ship (``no_hip_library``, reported by HZ300) are not
    converted either: emitting them would trade one undeclared identifier for another.
    """
    name = hip_name(entry, options)
    if name is None or no_hip_library(entry, options):
        return False
    if name == entry.roc and name != entry.hip:
        return True  # --roc/--miopen: the roc*/MIOpen library has it even where hip* does not
    if needs_newer_hip(entry, options):
        return False
    if entry.status in ("supported", "deprecated"):
        return True
    if entry.status == "experimental":
        return options.experimental
    return False


@functools.lru_cache(maxsize=1024)  # a few dozen distinct versions, asked per renamed name
def _version(text: str) -> tuple[int, ...]:
    parts = [int(p) for p in text.split(".") if p.isdigit()]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def needs_newer_hip(entry: Entry, options: ConversionOptions) -> bool:
    """True when the HIP name appeared after the targeted ROCm version (--target-rocm)."""
    if not entry.hip_added:
        return False
    return _version(entry.hip_added) > _target(options)


def _target(options: ConversionOptions) -> tuple[int, ...]:
    return _version_of(options.target_rocm)


@functools.lru_cache(maxsize=16)  # asked once per mapped name of every file
def _version_of(target: tuple[int, ...]) -> tuple[int, ...]:
    return _version(".".join(str(t) for t in target))
