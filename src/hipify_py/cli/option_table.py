"""Every option of ``convert``, ``check``, ``report`` and ``verify``, each declared once, and
what the commands read from them: their click decorators, the ``Options`` a command line
sets, the fields an option overrides, the project config's keys.

An option that sets one ``Options`` field is declared on that field (``context.py``,
``option_spec.cli``) and placed here by its section (``field_options``); the others, which
steer a command or derive fields from other input, are declared here.  The order here is the
order of ``--help``.  An option several commands take is declared once with all of them in
``commands``; ``fields`` names the ``Options`` fields it sets (see ``cli/options.py`` and
CONTRIBUTING.md, "A command-line option").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from .. import config
from ..config import CONFIG_NAME
from ..context import Options
from ..files import BACKUP_SUFFIX
from ..option_spec import CHECK, CONVERT, REPORT, TREE, VERIFY, WRITES, cli_fields
from .options import Option, clash, config_kind, field_option
from .params import (
    LazyChoice,
    PathArg,
    check_arch,
    compile_db_flags,
    cuda_include,
    parse_shard,
)

OPTIONS: list[Option] = []  # in --help order


def declare(*declared: Option) -> None:
    """Add options to the table (in ``--help`` order); a config key is made known to the
    config reader here, so a key cannot exist without its option or the other way round."""
    for option in declared:
        twin = next((o for o in OPTIONS if clash(o, option)), None)
        if twin is not None:
            raise ValueError(f"option {option.name!r} declared twice for {twin.commands}")
        if option.config is not None:
            config.declare_key(option.config, config_kind(option))
        OPTIONS.append(option)


def of_command(command: str) -> Iterator[Option]:
    """The options ``command`` takes, in ``--help`` order."""
    return (o for o in OPTIONS if command in o.commands)


def declared(command: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate ``command``'s function with every option declared for it."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(list(of_command(command))):
            func = option.decorator()(func)
        return func

    return decorate


def options_fields(command: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The ``Options`` fields ``command``'s option ``values`` set: in declaration order, lists
    joined (``-I`` then ``--cuda-path`` then ``-p``) and flags or-ed (``--fix``,
    ``--unsafe-fixes``)."""
    out: dict[str, Any] = {}
    for option in of_command(command):
        for name, value in option.options_fields(values[option.name]).items():
            if name in out and isinstance(value, tuple):
                value = out[name] + value
            elif name in out and isinstance(value, bool):
                value = out[name] or value
            out[name] = value
    return out


def fields_set_by(command: str, names: Iterable[str]) -> set[str]:
    """The ``Options`` fields the options ``names`` of ``command`` set."""
    wanted = set(names)
    return {f for o in of_command(command) if o.name in wanted for f in o.fields}


def from_config(values: dict[str, Any], project: config.Config) -> None:
    """Fill the options the command line left out from the project config's keys."""
    ctx = click.get_current_context()
    for option in of_command(ctx.command.name or ""):
        key = option.config
        if key is None or key not in project.values:
            continue
        if ctx.get_parameter_source(option.name) is ParameterSource.COMMANDLINE:
            continue
        value = project.values[key]
        values[option.name] = tuple(value) if isinstance(value, list) else value


def field_options(section: str) -> list[Option]:
    """The options ``Options`` fields declare (``context.py``) for ``section`` of ``--help``,
    in field order."""
    return [field_option(f, flag) for f, flag in cli_fields(Options) if flag.section == section]


def _unplaced() -> list[Option]:
    """The options of fields whose section the table does not place: they come last."""
    placed = {(o.name, o.commands) for o in OPTIONS}
    every = (field_option(f, flag) for f, flag in cli_fields(Options))
    return [o for o in every if (o.name, o.commands) not in placed]


def _toolchains() -> tuple[str, ...]:
    from ..verify.discovery import KINDS

    return KINDS


def _check_formats() -> list[str]:
    from ..report.formats import load_formats

    return sorted(load_formats())


def _report_formats() -> list[str]:
    from ..report.porting import load_port_formats

    return sorted(load_port_formats())


def _verify_formats() -> tuple[str, ...]:
    from ..verify.formats import FORMATS

    return FORMATS


FILE = PathArg(path_type=Path, dir_okay=False)
FLAG = {"is_flag": True}
# fmt: off
declare(
    # ---------------------------------------------------------------- convert: where output goes
    Option("out_dir", ("--out-dir",), CONVERT,
           "Write the converted tree here (default: a sibling DIR-hip/).",
           {"type": PathArg(path_type=Path)}),
    Option("output_file", ("-o", "--output"), CONVERT,
           "Write the single converted input to FILE.", {"type": FILE}),
    Option("to_stdout", ("--stdout",), CONVERT, "Print the single converted input.", FLAG),
    Option("in_place", ("--in-place",), CONVERT,
           f"Rewrite the inputs atomically, keeping a {BACKUP_SUFFIX} backup.", FLAG),
    Option("force", ("--force",), CONVERT,
           "Overwrite files in the output tree that were edited since convert wrote them.", FLAG),
    Option("no_backup", ("--no-backup",), CONVERT, "With --in-place: keep no backup.", FLAG),
    Option("dry_run", ("--dry-run",), CONVERT, "Write nothing; print a unified diff.", FLAG),
    Option("diff_file", ("--diff-file",), CONVERT,
           "With --dry-run: save the diff to FILE instead of printing it.", {"type": FILE}),
    *field_options("convert"),
    Option("no_hazards", ("--no-hazards",), CONVERT,
           "Convert only; skip the hazard rules.", FLAG),
    Option("json_file", ("--json",), CONVERT,
           "Write the summary as JSON to FILE ('-' for stdout).",
           {"type": PathArg(path_type=Path, dir_okay=False, allow_dash=True)}),
    Option("strict", ("--strict",), CONVERT,
           "Exit 1 when unsupported APIs or error-level findings remain.", FLAG),
    Option("verify_after", ("--verify",), CONVERT,
           "Compile-check the converted files for an AMD target afterwards.", FLAG),
    # ---------------------------------------------------------------- report: the page
    Option("fmt", ("--format",), REPORT,
           "html: one self-contained page; markdown: a short pull-request comment.",
           {"type": LazyChoice(_report_formats), "default": "html", "show_default": True},
           conversion=False),
    Option("output", ("-o", "--output"), REPORT,
           "Write the report to FILE ('-' for stdout; default: hipify-report.html for html, "
           "stdout for markdown).",
           {"type": PathArg(path_type=Path, dir_okay=False, allow_dash=True)}, conversion=False),
    Option("verify_json", ("--verify-json",), REPORT,
           "Show each translation unit's result from `hipify-py verify --format json` output.",
           {"type": PathArg(path_type=Path, dir_okay=False, exists=True)}, conversion=False),
    Option("verify_run", ("--verify",), REPORT,
           "Also compile-check the conversion (in a temporary tree) and show each file's result.",
           FLAG, conversion=False),
    # ---------------------------------------------------------------- with --verify
    Option("arch", ("--arch",), WRITES, "With --verify: the AMD GPU to check for.",
           {"default": "gfx942", "show_default": True, "callback": check_arch},
           conversion=False),
    Option("toolchain", ("--toolchain",), WRITES, "With --verify: which compiler to use.",
           {"type": LazyChoice(_toolchains), "default": "auto", "show_default": True},
           conversion=False),
    Option("quiet", ("-q", "--quiet"), CONVERT,
           "No summary table; findings and failures still print.", FLAG),
    Option("title", ("--title",), REPORT, "The report's title (default: names the PATHS).",
           conversion=False),
    # ---------------------------------------------------------------- check: the gate
    Option("fmt", ("--format",), CHECK, "Report format.",
           {"type": LazyChoice(_check_formats), "default": "text", "show_default": True}),
    Option("output", ("--output", "-o"), CHECK,
           "Write the report to FILE instead of standard output.", {"type": FILE}),
    Option("fail_on", ("--fail-on",), CHECK, "Lowest severity that makes the check fail.",
           {"type": click.Choice(["error", "warning", "info"]), "default": "error",
            "show_default": True}),
    Option("select", ("--select",), CHECK,
           "Only these rule IDs or prefixes (comma list, e.g. HZ1,HZ300).",
           {"multiple": True, "metavar": "IDS"}),
    Option("ignore", ("--ignore",), CHECK, "Skip these rule IDs or prefixes (comma list).",
           {"multiple": True, "metavar": "IDS"}, config="ignore"),
    Option("baseline", ("--baseline",), CHECK,
           "Hide findings recorded in this baseline file (only new ones fail).", {"type": FILE}),
    Option("write_baseline", ("--write-baseline",), CHECK,
           "Record today's findings in FILE and exit 0.", {"type": FILE}),
    Option("hip_dir", ("--in-sync", "--out-dir"), CHECK,
           "Also fail when the committed HIP tree in DIR is missing, stale or orphaned files "
           "(options come from the manifest convert wrote there).",
           {"type": PathArg(path_type=Path)}),
    # ---------------------------------------------------------------- how convert's output looks
    *field_options("output"),
    # ---------------------------------------------------------------- check: config, output
    Option("config_path", ("--config",), CHECK,
           f"Project config (default: the nearest {CONFIG_NAME}).", {"type": FILE}),
    Option("no_config", ("--no-config",), CHECK,
           f"Ignore the project config ({CONFIG_NAME}, pyproject.toml).", FLAG),
    Option("quiet", ("-q", "--quiet"), CHECK,
           "Only the findings and failures; no summary line.", FLAG),
    # ---------------------------------------------------------------- which files
    Option("include", ("--include",), TREE, "Only look at files matching GLOB (repeatable).",
           {"multiple": True, "metavar": "GLOB"}),
    Option("exclude", ("--exclude",), TREE, "Skip files matching GLOB (repeatable).",
           {"multiple": True, "metavar": "GLOB"}),
    Option("jobs", ("-j", "--jobs"), TREE, "Parallel processes (default: all cores).",
           {"type": click.IntRange(0), "default": 0}, conversion=False),
    Option("shard", ("--shard",), TREE,
           "Only the I-th of N parts of the files (split by path; for N CI jobs).",
           {"callback": parse_shard, "metavar": "I/N"}, conversion=False),
    Option("no_cache", ("--no-cache",), TREE,
           "Convert every file; neither read nor update the per-file result cache.", FLAG,
           conversion=False),
    # ---------------------------------------------------------------- what is converted, how
    *field_options("parse"),
    Option("cuda_path", ("--cuda-path",), TREE, "A CUDA installation to parse against.",
           {"type": PathArg(path_type=Path, file_okay=False, exists=True)},
           fields=("include_dirs",), sets=cuda_include),
    Option("build_dir", ("-p",), TREE,
           "Directory with compile_commands.json: parse with its flags.",
           {"type": PathArg(path_type=Path)},
           fields=("include_dirs", "defines"), sets=compile_db_flags),
    Option("mapping_files", ("--mapping",), TREE,
           "Extra mapping rules (YAML, same schema; they win).",
           {"multiple": True, "type": FILE}, config="mappings"),
    *field_options("clang"),
    # ---------------------------------------------------------------- verify
    Option("arch", ("--arch",), VERIFY,
           "AMD GPU to check for; falls back (with a warning) to the newest arch of the "
           "same family the compiler knows.",
           {"default": "gfx942", "show_default": True, "callback": check_arch}),
    Option("toolchain", ("--toolchain",), VERIFY,
           "hipcc, clang + HIP headers, or libclang (syntax only); auto prefers one that "
           "knows --arch, then the newest HIP.",
           {"type": LazyChoice(_toolchains), "default": "auto", "show_default": True}),
    Option("mode", ("--syntax",), VERIFY,
           "Host + device semantic check (-fsyntax-only; default).",
           {"flag_value": "syntax", "default": True}),
    Option("mode", ("--codegen",), VERIFY,
           "Also build the code object (hipcc, or clang with the ROCm device libraries; "
           "without them clang stops at gfx ISA).", {"flag_value": "codegen"}),
    Option("rocm_path", ("--rocm-path",), VERIFY,
           "ROCm install or header set (bin/hipcc, include/hip, llvm/bin/clang, device "
           "libraries; also a `hipify-py toolchain fetch --dest` directory).",
           {"type": PathArg(file_okay=False)}),
    Option("hip_include", ("--hip-include",), VERIFY,
           "Directory containing hip/hip_runtime.h for clang [env HIPIFY_PY_HIP_INCLUDE].",
           {"type": PathArg(file_okay=False)}),
    Option("include_dirs", ("-I",), VERIFY, "Add an include directory.",
           {"multiple": True, "metavar": "DIR"}),
    Option("defines", ("-D",), VERIFY, "Define a macro.",
           {"multiple": True, "metavar": "NAME[=VALUE]"}),
    Option("std", ("--std",), VERIFY, "C++ standard.", {"default": "c++17", "show_default": True}),
    Option("build_path", ("-p", "--build-path"), VERIFY,
           "Directory with compile_commands.json; each file gets its entry's -I/-D.",
           {"type": PathArg(exists=True)}),
    Option("jobs", ("-j", "--jobs"), VERIFY, "Files compiled in parallel (default: one per core).",
           {"type": click.IntRange(min=0), "default": 0}),
    Option("cuda_root", ("--cuda-root", "--from"), VERIFY,
           "The CUDA tree these files were converted from: errors are also shown at "
           "the CUDA line (the conversion is redone in memory to map them).",
           {"type": PathArg(exists=True, file_okay=False)}),
    Option("target_rocm", ("--target-rocm",), VERIFY,
           "ROCm version the tree was converted for (to reproduce the conversion).",
           {"default": None}),
    Option("fmt", ("--format",), VERIFY,
           "text: path:line:col: lines; github: workflow annotations; sarif; json.",
           {"type": LazyChoice(_verify_formats), "default": "text", "show_default": True}),
    Option("show_warnings", ("--warnings",), VERIFY, "Also list compiler warnings.", FLAG),
)
# fmt: on
declare(*_unplaced())
