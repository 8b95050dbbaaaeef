"""Where converted sources go: one explicit output mode and the writer that carries it out.

The CLI chooses a ``Destination`` (mode plus paths); ``plan`` turns it and the inputs into a
``Writer``; the writer takes each ``Outcome`` as it arrives from the runner and writes (or
prints, or diffs) it at once, so a long run's finished files are on disk before it ends.
File-system safety lives in ``files`` (a top-level module: the caches and the mapping index
write through it too); the output tree's manifest in ``output.manifest``.
"""

from __future__ import annotations

import enum
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..context import Options
from ..discover import (
    Candidate,
    UsageError,
    default_out_root,
    discover,
    output_name,
    single_file_output,
)
from ..files import (
    BACKUP_SUFFIX,
    WriteError,
    backup_original,
    file_stamp,
    holds,
    sha256,
    write_file,
)
from ..result import FileStatus, Outcome
from ..untrusted import UntrustedInputError, read_regular
from .manifest import Manifest, ManifestError, options_record

SOURCE_LIMIT = 1 << 31  # bytes of one file copied or compared


class WriteBack(enum.Enum):
    """What ``convert`` does with each result (black's WriteBack, for trees)."""

    TREE = "tree"  # mirror the inputs into an output directory (with a manifest)
    FILE = "file"  # one input, one output file
    STDOUT = "stdout"  # one input, printed
    IN_PLACE = "in-place"  # rewrite the inputs, keeping a .prehip backup
    DIFF = "diff"  # write nothing; a unified diff


@dataclass(frozen=True)
class Destination:
    mode: WriteBack
    out_dir: Path | None = None  # TREE: where (default: a sibling DIR-hip/)
    output_file: Path | None = None  # FILE: where (default: k.hip beside k.cu)
    keep_names: bool = False
    backup: bool = True  # IN_PLACE
    force: bool = False  # TREE: overwrite generated files edited by hand


class Writer:
    """Writes outcomes one by one for a planned run (see ``plan``)."""

    def __init__(
        self,
        dest: Destination,
        items: list[Candidate],
        out_root: Path | None = None,
        target: Path | None = None,
        manifest: Manifest | None = None,
        previous: Manifest | None = None,
    ) -> None:
        self.dest = dest
        self.items = items
        self.out_root = out_root
        self.target = target
        self.manifest = manifest
        self.previous = previous
        self.diffs: dict[Path, str] = {}
        self.written: dict[Path, Path] = {}  # output path -> the input written there
        # input -> (its output, sha256 of the bytes it now holds), for outputs this run wrote or
        # found verified; ``settled`` hands each out once (the cache stamps it)
        self._verified: dict[Path, tuple[Path, str]] = {}
        self.renamed = frozenset(
            output_name(c.rel, dest.keep_names) for c in items if c.rel.suffix == ".cu"
        ) - {c.rel for c in items if c.rel.suffix == ".cu"}

    def emit(self, outcome: Outcome) -> Path | None:
        """Write one outcome; returns the path written (None when nothing was).  Raises
        WriteError (one line) for a file that could not or must not be written."""
        mode = self.dest.mode
        if mode is WriteBack.STDOUT:
            stream = sys.stdout.buffer
            stream.write(_bytes_of(outcome))
            stream.flush()
            return None
        if mode is WriteBack.DIFF:
            self._diff(outcome)
            return None
        if mode is WriteBack.IN_PLACE:
            return self._in_place(outcome)
        if mode is WriteBack.FILE:
            assert self.target is not None
            explicit = self.dest.output_file is not None
            root = None if explicit else self.target.parent
            write_file(self.target, _bytes_of(outcome), mode=_mode_of(outcome), root=root)
            return self.target
        return self._tree(outcome)

    def keep(self, outcome: Outcome) -> bool:
        """For an outcome from the per-file cache: True when there is nothing to write (its
        output is already in place with the bytes the cache says it makes, and the manifest
        recorded them), so the input need not even be read.  False: ``emit`` it as usual."""
        mode = self.dest.mode
        if mode in (WriteBack.DIFF, WriteBack.IN_PLACE):
            return outcome.status is not FileStatus.CONVERTED
        if mode is not WriteBack.TREE or self.previous is None:
            return False
        assert self.out_root is not None and self.manifest is not None
        cand = outcome.candidate
        rel, collides = self._tree_rel(outcome)
        if collides:
            return False  # a name collision: emit says so
        entry = self.previous.files.get(rel.as_posix())
        if entry is None or entry.get("sha256") != outcome.out_digest:
            return False
        target = self.out_root / rel
        # an output still carrying the stamp its record holds needs no reading, nor stamping
        stamped = outcome.out_stamp is not None and file_stamp(target) == outcome.out_stamp
        if not stamped and not holds(target, outcome.out_digest, SOURCE_LIMIT, root=self.out_root):
            return False
        if self.written.setdefault(target, cand.path) != cand.path:
            return False
        self.manifest.record(rel, cand.real_path(), outcome.out_digest)  # as emit would
        if self.manifest.files[rel.as_posix()]["source"] != entry.get("source"):
            return False
        if not stamped:
            self._verified[cand.path] = (target, outcome.out_digest)
        return True

    def diff_text(self) -> str:
        """The whole diff, in input order."""
        return "".join(self.diffs[c.path] for c in self.items if c.path in self.diffs)

    def close(self) -> None:
        """Record what the tree holds (also after an interrupted run: every file written so
        far is whole, and the manifest says which they are)."""
        if self.manifest is not None:
            self.manifest.save()

    def _diff(self, outcome: Outcome) -> None:
        result = outcome.result
        if outcome.status is not FileStatus.CONVERTED or result is None:
            return
        from ..report.diff import unified_diff  # --dry-run only

        cand = outcome.candidate
        new_rel = output_name(cand.rel, self.dest.keep_names)
        self.diffs[cand.path] = unified_diff(
            result.original, result.text, cand.rel.as_posix(), new_rel.as_posix()
        )

    def _in_place(self, outcome: Outcome) -> Path | None:
        result = outcome.result
        if outcome.status is not FileStatus.CONVERTED or result is None:
            return None
        cand = outcome.candidate
        path = Path(os.path.realpath(cand.path))
        root = _input_root(cand)
        current = _read(path, root)
        if sha256(current) != outcome.digest:
            raise WriteError(f"{cand.path} changed while it was converted; not rewritten")
        if self.dest.backup:
            backup_original(path, current)
        write_file(path, result.data, root=root)
        return cand.path

    def _tree_rel(self, outcome: Outcome) -> tuple[Path, bool]:
        """Where ``outcome`` goes in the output tree, and whether a converted file renamed to
        that name already takes it (a copied ``k.hip`` beside a ``k.cu``)."""
        cand = outcome.candidate
        rel = output_name(cand.rel, self.dest.keep_names) if outcome.result else cand.rel
        return rel, rel in self.renamed and rel == cand.rel

    def _tree(self, outcome: Outcome) -> Path | None:
        assert self.out_root is not None and self.manifest is not None
        cand = outcome.candidate
        rel, collides = self._tree_rel(outcome)
        if collides and not _bytes_of(outcome):
            # an empty placeholder the conversion takes the place of (cuSZ keeps an empty
            # `hf_kernels.hip` beside `hf_kernels.cu`): nothing of it is lost
            return None
        if collides:
            raise WriteError(
                f"name collision: the conversion of {cand.rel.with_suffix('.cu')} is written "
                f"to {rel}; this file was not copied (use --keep-names)"
            )
        target = self.out_root / rel
        earlier = self.written.setdefault(target, cand.path)
        if earlier != cand.path:
            raise WriteError(f"name collision: {earlier} is already written to {target}")
        data = _bytes_of(outcome)
        digest = sha256(data)
        if os.path.lexists(target) and self._unchanged(target, rel, data):
            written = None
        else:
            write_file(target, data, mode=_mode_of(outcome), root=self.out_root)
            written = target
        self.manifest.record(rel, cand.real_path(), digest)
        self._verified[cand.path] = (target, digest)
        return written

    def settled(self, source: Path) -> tuple[Path, str] | None:
        """The output this run wrote, or found already holding the right bytes, for input
        ``source`` and the sha256 of those bytes (once; None when there is none)."""
        return self._verified.pop(source, None)

    def _unchanged(self, target: Path, rel: Path, data: bytes) -> bool:
        """True when ``target`` already holds ``data``; raises when it holds something convert
        did not write (a hand edit) and --force was not given."""
        try:
            current = read_regular(target, SOURCE_LIMIT, root=self.out_root)
        except UntrustedInputError as exc:
            raise WriteError(str(exc)) from None
        if current == data:
            return True
        if self.dest.force:
            return False
        entry = self.previous.files.get(rel.as_posix()) if self.previous else None
        if entry is None:
            raise WriteError(
                f"{target} exists and was not written by hipify-py convert; --force overwrites it"
            )
        if entry.get("sha256") != sha256(current):
            raise WriteError(f"{target} was edited since hipify-py wrote it; --force overwrites it")
        return False


def _read(path: Path, root: Path | None = None) -> bytes:
    try:
        return read_regular(path, SOURCE_LIMIT, root=root)
    except UntrustedInputError as exc:
        raise WriteError(str(exc)) from None


def _bytes_of(outcome: Outcome) -> bytes:
    """What to write for an outcome: the converted text, else the input's bytes unchanged."""
    if outcome.result is not None and outcome.status is not FileStatus.FAILED:
        return outcome.result.data
    cand = outcome.candidate
    return _read(cand.path, _input_root(cand))


def _input_root(cand: Candidate) -> Path:
    """The real path of the directory an input is read (and rewritten in place) under: the
    walked root discovery resolved once, or the directory of a file named alone."""
    if cand.within is not None:
        return cand.within
    return Path(os.path.realpath(cand.root if cand.root.is_dir() else cand.path.parent))


def _mode_of(outcome: Outcome) -> int | None:
    """The input's permission bits, so a script stays executable in the output."""
    try:
        return stat.S_IMODE(os.stat(outcome.candidate.path).st_mode)
    except OSError:
        return None


def plan(
    paths: Sequence[Path],
    dest: Destination,
    options: Options,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Writer:
    """The files to convert and a Writer for them; raises UsageError for a request that
    cannot be carried out safely."""
    mode = dest.mode
    if mode in (WriteBack.STDOUT, WriteBack.FILE):
        items = discover(paths)
        if mode is WriteBack.STDOUT:
            return Writer(dest, items)
        target = dest.output_file or single_file_output(paths[0], dest.keep_names)
        if os.path.realpath(target) == os.path.realpath(paths[0]):
            raise UsageError("the output file is the input; use --in-place to rewrite sources")
        return Writer(dest, items, target=target)
    if mode in (WriteBack.IN_PLACE, WriteBack.DIFF):
        return Writer(dest, discover(paths, include, exclude))
    return _plan_tree(paths, dest, options, include, exclude)


def _refuse_replacing_inputs(items: list[Candidate], out_root: Path, keep_names: bool) -> None:
    """An output tree that holds the inputs must not take their place: converting
    ``src/b.cpp`` into ``--out-dir src`` would write over the CUDA source it reads."""
    inputs = {str(c.real_path()): c for c in items}
    for cand in items:
        # a converted file takes its output name, a copied one keeps its own
        for rel in {cand.rel, output_name(cand.rel, keep_names)}:
            replaced = inputs.get(str(out_root / rel))
            if replaced is not None:
                raise UsageError(
                    f"the output for {cand.path} would replace the input {replaced.path}; "
                    "choose an --out-dir outside the inputs, or --in-place to rewrite sources"
                )


def _plan_tree(
    paths: Sequence[Path],
    dest: Destination,
    options: Options,
    include: Sequence[str],
    exclude: Sequence[str],
) -> Writer:
    out_dir = dest.out_dir
    if out_dir is None:
        if len(paths) != 1:
            raise UsageError("several inputs need --out-dir")
        out_dir = default_out_root(paths[0])
        if out_dir.is_symlink():
            raise UsageError(
                f"the default output directory {out_dir} is a symlink; name one with --out-dir"
            )
    if os.path.lexists(out_dir) and not out_dir.is_dir():
        raise UsageError(f"--out-dir {out_dir} exists and is not a directory")
    out_root = out_dir.resolve()
    for p in paths:
        if p.is_dir() and p.resolve() == out_root:
            raise UsageError("the output directory is the input; use --in-place to rewrite sources")
    items = discover(paths, include, exclude, skip=[out_root])
    _refuse_replacing_inputs(items, out_root, dest.keep_names)
    try:  # nothing can be written where the output root cannot exist
        out_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the output directory {out_dir}: {exc.strerror}") from None
    try:
        previous = Manifest.load(out_root)
    except ManifestError as exc:
        raise UsageError(str(exc)) from None
    manifest = Manifest(out_root, files=dict(previous.files) if previous else {})
    manifest.on_disk = previous.on_disk if previous else None
    manifest.set_roots(list(paths), prefixed=len(paths) > 1)
    manifest.options = options_record(options)
    return Writer(dest, items, out_root, manifest=manifest, previous=previous)


__all__ = [
    "BACKUP_SUFFIX",
    "Destination",
    "WriteBack",
    "WriteError",
    "Writer",
    "plan",
]
