"""``hipify-py mappings``: look up the CUDA -> HIP tables (show, search, stats)."""

from __future__ import annotations

import difflib
import fnmatch
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from ..context import DEFAULT_TARGET_ROCM
from ..mappings import KINDS, STATUSES, Entry, MappingError, MappingIndex, load_index
from .params import PathArg


def _index(all_families: bool = True) -> MappingIndex:
    try:
        index = load_index()
    except MappingError as exc:
        click.echo(f"hipify-py: error: {exc}", err=True)
        sys.exit(2)
    return index.with_families(index.optional_families) if all_families else index


def _as_dict(e: Entry) -> dict[str, Any]:
    fields = (
        "cuda", "hip", "roc", "status", "kind", "family", "section", "cuda_added",
        "cuda_deprecated", "cuda_removed", "hip_added", "hip_deprecated", "hip_removed",
        "hip_experimental", "hip_unsupported_cuda", "hip_checked", "note", "source",
    )  # fmt: skip
    data = {f: getattr(e, f) for f in fields if getattr(e, f) not in (None, "")}
    if e.kind != "header":
        from ..context import Options
        from ..mappings.provenance import emitted_for, holds_from, origin

        data["origin"] = origin(e)
        since = holds_from(e)
        if since:
            data["holds_from"] = since
        data["converts_to"] = emitted_for(e, Options())
    return data


@click.group("mappings")
def mappings() -> None:
    """Query the CUDA -> HIP mapping tables."""


@mappings.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the entry as JSON.")
def show(name: str, as_json: bool) -> None:
    """Show the HIP mapping of one CUDA identifier or header."""
    index = _index()
    entry = index.get(name) or index.header(name)
    if entry is None:
        names = list(index.entries) + list(index.headers)
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.75)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        click.echo(f"hipify-py: unknown CUDA name '{name}'{hint}", err=True)
        sys.exit(1)
    data = _as_dict(entry)
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    width = max(len(k) for k in data)
    for key, value in data.items():
        click.echo(f"{key:<{width}}  {value}")
    others = [e for e in index.all_entries if e.cuda == entry.cuda and e is not entry]
    for other in others:
        click.echo(f"also in   {other.source} ({other.family}, {other.status}, hip={other.hip})")


def _match(pattern: str) -> Callable[[str | None], bool]:
    if any(c in pattern for c in "*?["):
        pat = pattern.lower()
        return lambda s: s is not None and fnmatch.fnmatchcase(s.lower(), pat)
    needle = pattern.lower()
    return lambda s: s is not None and needle in s.lower()


@mappings.command("search")
@click.argument("pattern")
@click.option("--family", "families", multiple=True, help="Only this family (repeatable).")
@click.option(
    "--status", "statuses", multiple=True, type=click.Choice(STATUSES), help="Only this status."
)
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only this kind.")
@click.option(
    "--limit", type=click.IntRange(0), default=200, show_default=True, help="Max rows (0: all)."
)
@click.option("--json", "as_json", is_flag=True, help="Print matches as a JSON list.")
def search(
    pattern: str,
    families: tuple[str, ...],
    statuses: tuple[str, ...],
    kinds: tuple[str, ...],
    limit: int,
    as_json: bool,
) -> None:
    """Search CUDA and HIP names (case-insensitive substring, or a glob with * ? [])."""
    index = _index()
    known = {e.family for e in index.all_entries}
    for fam in families:
        if fam not in known:
            click.echo(
                f"hipify-py: error: unknown family '{fam}' (known: {', '.join(sorted(known))})",
                err=True,
            )
            sys.exit(2)
    hits = _hits(index.all_entries, _match(pattern), families, statuses, kinds)
    total = len(hits)
    shown = hits if limit <= 0 else hits[:limit]
    if as_json:
        click.echo(json.dumps([_as_dict(e) for e in shown], indent=2))
        return
    if not hits:
        click.echo(f"no matches for '{pattern}'")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{total} match{'es' if total != 1 else ''} for '{pattern}'")
    for col in ("CUDA", "HIP", "status", "kind", "family", "HIP added"):
        table.add_column(col, no_wrap=True)
    for e in shown:
        table.add_row(e.cuda, e.hip or "-", e.status, e.kind, e.family, e.hip_added or "")
    console = Console(width=max(140, Console().width))
    console.print(table)
    if len(shown) < total:
        console.print(f"({total - len(shown)} more; use --limit 0 to show all)")


def _hits(
    entries: Iterable[Entry],
    match: Callable[[str | None], bool],
    families: tuple[str, ...],
    statuses: tuple[str, ...],
    kinds: tuple[str, ...],
) -> list[Entry]:
    """The entries that ``match`` by a name and pass the filters (each once)."""
    seen: set[int] = set()
    hits: list[Entry] = []
    for e in entries:
        if families and e.family not in families:
            continue
        if statuses and e.status not in statuses:
            continue
        if kinds and e.kind not in kinds:
            continue
        if (match(e.cuda) or match(e.hip) or match(e.roc)) and id(e) not in seen:
            seen.add(id(e))
            hits.append(e)
    return hits


@mappings.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print counts as JSON.")
def stats(as_json: bool) -> None:
    """Count table rows by family and status."""
    index = _index()
    counts: Counter[tuple[str, str]] = Counter((e.family, e.status) for e in index.all_entries)
    families = sorted({f for f, _ in counts})
    if as_json:
        data = {f: {s: counts[(f, s)] for s in STATUSES if counts[(f, s)]} for f in families}
        click.echo(json.dumps({"families": data, "rows": len(index.all_entries),
                               "names": len(index.entries), "headers": len(index.headers)},
                              indent=2))  # fmt: skip
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title="CUDA -> HIP mapping rows by family and status")
    table.add_column("family")
    for s in STATUSES:
        table.add_column(s, justify="right")
    table.add_column("total", justify="right")
    for f in families:
        row = [counts[(f, s)] for s in STATUSES]
        table.add_row(f, *(str(n) for n in row), str(sum(row)))
    col = [sum(counts[(f, s)] for f in families) for s in STATUSES]
    table.add_row("total", *(str(n) for n in col), str(sum(col)), style="bold")
    Console(width=max(140, Console().width)).print(table)


@mappings.command("audit")
@click.option(
    "--rocm-path",
    type=PathArg(file_okay=False, path_type=Path),
    envvar="ROCM_PATH",
    default="/opt/rocm",
    show_default=True,
    help="ROCm tree whose include/ holds hip/ and the library headers (env ROCM_PATH).",
)
@click.option(
    "--target-rocm",
    default=None,
    help=f"ROCm version to audit for (default {'.'.join(map(str, DEFAULT_TARGET_ROCM))}).",
)
@click.option("--clang", default="clang-19", show_default=True, help="clang with HIP support.")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def audit(rocm_path: Path, target_rocm: str | None, clang: str, as_json: bool) -> None:
    """Check the names the tables emit against real ROCm headers.

    Exit status: 0 when every absent HIP name is explained by overrides.yaml, 1 otherwise, 2 for
    a usage error (no headers, no clang).
    """
    import shutil

    from ..context import Options, parse_version
    from ..verify.mappings_audit import run_audit

    if not (rocm_path / "include" / "hip" / "hip_runtime.h").is_file():
        click.echo(f"hipify-py: error: {rocm_path}: no include/hip/hip_runtime.h", err=True)
        sys.exit(2)
    if shutil.which(clang) is None:
        click.echo(f"hipify-py: error: {clang} not found (--clang)", err=True)
        sys.exit(2)
    try:
        options = Options(target_rocm=parse_version(target_rocm)) if target_rocm else Options()
    except ValueError as exc:
        click.echo(f"hipify-py: error: --target-rocm: {exc}", err=True)
        sys.exit(2)
    try:
        result = run_audit(rocm_path, clang, options, _index(all_families=False))
    except RuntimeError as exc:
        click.echo(f"hipify-py: error: {exc}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
    else:
        target = ".".join(map(str, result.target))
        click.echo(f"ROCm {rocm_path}, --target-rocm {target}")
        click.echo(f"emitted HIP names          {len(result.emitted)}")
        click.echo(f"  absent from the headers  {len(result.absent)}")
        for hip, entries in sorted(result.absent.items()):
            why = "" if result.explained(hip) else "  (UNEXPLAINED)"
            cudas = sorted(e.cuda for e in entries)
            click.echo(f"    {hip} <- {', '.join(cudas)}{why}")
        click.echo(f"  unverified (library headers not in the tree)  {len(result.unverified)}")
        pairs = sorted(result.counterparts.items())
        click.echo(f"unsupported CUDA names with a HIP counterpart  {len(pairs)}")
        for cuda, (_, hip) in pairs:
            click.echo(f"    {cuda} -> {hip}")
        click.echo(f"  reviewed and kept unsupported (overrides.yaml)  {len(result.reviewed)}")
        for cuda, entry in sorted(result.headers_absent.items()):
            click.echo(f"header {cuda} -> {entry.hip}: not in the tree")
        late = sorted(result.dated_too_late.items())
        click.echo(f"dated after this release, yet declared (hip_added wrong)  {len(late)}")
        for hip, entries in late:
            click.echo(f"    {hip} <- {', '.join(sorted(e.cuda for e in entries))}")
    sys.exit(0 if all(result.explained(hip) for hip in result.absent) else 1)
