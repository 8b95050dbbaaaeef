"""hipify-clang / hipify-perl spellings, rewritten to ours before click parses the command line.

People and scripts coming from HIPIFY keep working: ``-o=FILE``, ``--o-dir``, ``--inplace``,
single-dash long options, and ``-- <clang args>`` after the inputs.
"""

from __future__ import annotations

from collections.abc import Sequence

# HIPIFY option -> our spelling (None: accepted and ignored, because it is our default)
_ALIASES: dict[str, str | None] = {
    "--hip-kernel-execution-syntax": "--launch-syntax=hip",
    "--cuda-kernel-execution-syntax": "--launch-syntax=cuda",
    "--skip-excluded-preprocessor-conditional-blocks": "--skip-inactive",
    "--default-preprocessor": "--skip-inactive",
    "--amap": None,  # we translate inactive branches by default; --amap also beats skipping
    "--inplace": "--in-place",
    "--o-dir": "--out-dir",
    "--use-hip-data-types": "--use-hip-data-types",
    "--print-stats": None,  # the summary is always printed
    "--examine": "--dry-run",
    "--no-output": "--dry-run",
    "--quiet-warnings": "--quiet",
    "--no-backup": "--no-backup",
    "--print-stats-csv": None,
    "--save-temps": None,
    "--no-undocumented-features": None,
    "--versions": "--version",
}
_SINGLE_DASH_LONG = {a[1:] for a in _ALIASES} | {
    "-roc",
    "-miopen",
    "-experimental",
    "-inplace",
    "-examine",
    "-cuda-path",
    "-o-dir",
}
_WITH_VALUE = {
    "--o-dir",
    "--cuda-path",
    "--clang-resource-directory",
    "--temp-dir",
    "--cuda-gpu-arch",
    "--o-stats",
    "--exclude-dirs",
    "--exclude-files",
}
_DROPPED_WITH_VALUE = {"--clang-resource-directory", "--temp-dir", "--cuda-gpu-arch", "--o-stats"}


_EXCLUDES = {"--exclude-dirs": "/*", "--exclude-files": ""}  # -> --exclude=ITEM + suffix
_TAKES_NEXT = _DROPPED_WITH_VALUE | set(_EXCLUDES)  # without `=`, the next argument is the value


def normalize_argv(argv: Sequence[str]) -> list[str]:
    """Rewrite HIPIFY-style arguments of ``convert`` into hipify-py's own."""
    out: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            out.extend(f"--clang-arg={a}" for a in args[i:])
            break
        if arg.startswith("-o="):
            out += ["-o", arg[3:]]
            continue
        if (
            arg.startswith("-")
            and not arg.startswith("--")
            and arg.split("=")[0] in _SINGLE_DASH_LONG
        ):
            arg = "-" + arg
        name, eq, value = arg.partition("=")
        if name in _TAKES_NEXT and not eq:
            value = args[i] if i < len(args) else ""
            i += 1
        out += _translated(arg, name, bool(eq), value)
    if any(a.lstrip("-") == "amap" for a in argv):  # HIPIFY: --amap overrides skipping
        out = [a for a in out if a != "--skip-inactive"]
    return out


def _translated(arg: str, name: str, eq: bool, value: str) -> list[str]:
    """Our spelling of one HIPIFY argument ``arg`` (``name``, and ``=value`` when ``eq``)."""
    if name in _DROPPED_WITH_VALUE:
        return []
    if name in _EXCLUDES:
        return [f"--exclude={item}{_EXCLUDES[name]}" for item in filter(None, value.split(","))]
    if name not in _ALIASES:
        return [arg]
    new = _ALIASES[name]
    if new is None:
        return []
    return [f"{new}={value}" if name in _WITH_VALUE and eq else new]
