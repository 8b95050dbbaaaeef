"""Each option is declared once (``cli/option_table.py``) and every place that needs it reads
that declaration: the commands' click options, the ``Options`` a command line builds and the
project config's keys (issue 27, item 6)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from hipify_py import config, context
from hipify_py.cli import COMMANDS, option_table, root
from hipify_py.cli.option_table import OPTIONS, declare, of_command, options_fields
from hipify_py.cli.options import Option
from hipify_py.context import Options
from hipify_py.option_spec import TREE, cli, cli_fields

TABLE_COMMANDS = ("convert", "check", "report", "verify")
KERNEL = "__global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n"


def _command(name: str) -> click.Command:
    command = root.get_command(click.Context(root), name)
    assert command is not None
    return command


def _click_options(command: click.Command) -> list[tuple[str | None, tuple[str, ...]]]:
    return [
        (p.name, (*p.opts, *p.secondary_opts))
        for p in command.params
        if isinstance(p, click.Option) and p.name != "help"
    ]


def _flags(option: Option) -> tuple[str, ...]:
    return tuple(f for decl in option.decls for f in decl.split("/"))


@pytest.mark.parametrize("name", TABLE_COMMANDS)
def test_each_command_takes_exactly_its_declared_options(name: str) -> None:
    declared = [(o.name, _flags(o)) for o in of_command(name)]
    assert _click_options(_command(name)) == declared
    assert len(declared) > 10


def test_every_command_with_declared_options_is_a_command() -> None:
    named = {c for o in OPTIONS for c in o.commands}
    assert named == set(TABLE_COMMANDS) and named <= set(COMMANDS)


def test_every_options_field_is_set_by_an_option_of_each_converting_command() -> None:
    for name in ("convert", "check", "report"):
        set_by = {f for o in of_command(name) for f in o.fields}
        missing = {f.name for f in fields(Options)} - set_by
        # the build files' targets and the one-source mode are convert's (and report's) only
        expected = {"convert": set(), "report": {"portable"}, "check": {"portable", "offload_arch"}}
        assert missing == expected[name], name


def test_every_declared_field_is_an_options_field() -> None:
    known = {f.name for f in fields(Options)}
    assert {f for o in OPTIONS for f in o.fields} <= known


def test_the_config_keys_are_the_declared_ones() -> None:
    keys = {o.config for o in OPTIONS if o.config}
    # --ignore and --mapping add to the config's; --enable replaces the config's enable:
    assert keys == {"ignore", "mappings", "enable"}
    assert set(config.known_keys()) == keys | {"per-file-ignores"}


def test_options_fields_join_lists_and_or_flags(tmp_path: Path) -> None:
    cuda = tmp_path / "cuda"
    (cuda / "include").mkdir(parents=True)
    args = ["-I", "a", "--cuda-path", str(cuda), "--unsafe-fixes", "k.cu"]
    values = _command("convert").make_context("convert", args).params
    got = options_fields("convert", values)
    assert got["include_dirs"] == ("a", str(cuda / "include"))
    assert got["fix"] is True and got["unsafe_fixes"] is True
    assert "offload_arch" not in got  # the Options default (gfx942) stays
    assert Options(**got).target_rocm == context.DEFAULT_TARGET_ROCM


# --------------------------------------------------------------------------- a probe option

PROBE = Option(
    "probe",
    ("--probe/--no-probe",),
    frozenset({"convert", "check"}),
    "Probe: also convert experimental APIs.",
    {"default": None},
    fields=("experimental",),
    sets=lambda on: {} if on is None else {"experimental": on},
    config="probe-experimental",
)


@pytest.fixture
def probe() -> Iterator[None]:
    """The probe declared in the table (one place), the commands rebuilt from the table."""
    modules = [importlib.import_module(f"hipify_py.cli.{c}") for c in ("convert", "check")]
    declare(PROBE)
    try:
        for module in modules:
            importlib.reload(module)
        yield
    finally:
        OPTIONS.remove(PROBE)
        config._DECLARED.pop("probe-experimental")
        for module in modules:
            importlib.reload(module)


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> list[Options]:
    """The Options each run builds (read where the mapping tables are loaded for them)."""
    from hipify_py.cli import common

    out: list[Options] = []
    load = common.load_index

    def spy(options: Options, rules: object) -> object:
        out.append(options)
        return load(options, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(common, "load_index", spy)
    return out


def _project(tmp_path: Path, config_text: str = "") -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "k.cu").write_text(KERNEL)
    if config_text:
        (tmp_path / ".hipify-py.yaml").write_text(config_text)
    return tmp_path / "k.cu"


def test_a_probe_option_shows_in_help_and_reaches_options(
    probe: None, seen: list[Options], tmp_path: Path
) -> None:
    source = _project(tmp_path)
    for name in ("convert", "check"):
        result = CliRunner().invoke(root, [name, "--help"])
        assert "--probe / --no-probe" in result.output and "Probe: also convert" in result.output
    assert "--probe" not in CliRunner().invoke(root, ["report", "--help"]).output
    result = CliRunner().invoke(root, ["convert", "--dry-run", "--probe", str(source)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(root, ["convert", "--dry-run", str(source)])
    assert result.exit_code == 0, result.output
    assert [o.experimental for o in seen] == [True, False]


def test_a_probe_config_key_reaches_the_config_reader_and_the_options(
    probe: None, seen: list[Options], tmp_path: Path
) -> None:
    source = _project(tmp_path, "probe-experimental: true\n")
    assert config.Config.find(source).values == {"probe-experimental": True}
    for args in (["check"], ["convert", "--dry-run"], ["check", "--no-probe"]):
        result = CliRunner().invoke(root, [*args, str(source)])
        assert result.exit_code == 0, result.output
    # the config sets it; the command line wins over the config
    assert [o.experimental for o in seen] == [True, True, False]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("probe-experimentl: true\n", "unknown key `probe-experimentl` (did you mean"),
        ("probe-experimental: yes please\n", "`probe-experimental` must be true or false"),
    ],
)
def test_a_bad_probe_config_is_one_line(
    probe: None, tmp_path: Path, text: str, message: str
) -> None:
    source = _project(tmp_path, text)
    result = CliRunner().invoke(root, ["check", str(source)])
    assert result.exit_code == 2 and message in result.output


def test_without_the_probe_its_key_is_unknown(tmp_path: Path) -> None:
    source = _project(tmp_path, "probe-experimental: true\n")
    with pytest.raises(config.ConfigFileError, match="unknown key"):
        config.Config.find(source)
    assert "probe" not in {o.name for o in option_table.OPTIONS}


# ------------------------------------------------ options declared on their Options field


def test_each_field_flag_reaches_its_field(seen: list[Options], tmp_path: Path) -> None:
    """Every flag an ``Options`` field declares (``option_spec.cli``) sets that field."""
    source = _project(tmp_path)
    flags = [(f.name, flag) for f, flag in cli_fields(Options) if f.default is False]
    assert len(flags) >= 8
    for name, flag in flags:
        result = CliRunner().invoke(root, ["convert", "--dry-run", flag.decls[0], str(source)])
        assert result.exit_code == 0, (name, result.output)
        assert getattr(seen[-1], name) is True, name
        assert all(getattr(seen[-1], other) is True for other in flag.also), name


def test_a_field_option_that_parses_its_value_fails_in_one_line(tmp_path: Path) -> None:
    source = _project(tmp_path)
    result = CliRunner().invoke(root, ["convert", "--target-rocm", "0.1", str(source)])
    assert result.exit_code == 2
    assert "Invalid value for --target-rocm: not a ROCm version: 0.1" in result.output


def test_a_repeatable_field_option_parses_each_value(seen: list[Options], tmp_path: Path) -> None:
    """``--offload-arch`` (declared on ``Options.offload_arch``): every value is checked, the
    good ones reach the field in order, one bad one is a one-line usage error."""
    source = _project(tmp_path)
    archs = ["--offload-arch", "gfx90a", "--offload-arch", "gfx942:xnack+"]
    result = CliRunner().invoke(root, ["convert", "--dry-run", *archs, str(source)])
    assert result.exit_code == 0, result.output
    assert seen[-1].offload_arch == ("gfx90a", "gfx942:xnack+")
    bad = CliRunner().invoke(root, ["convert", *archs, "--offload-arch", "sm_90", str(source)])
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert "Invalid value for --offload-arch: 'sm_90' is not an AMD GPU arch" in bad.output
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", "k.cu"]  # nothing written


@dataclass(frozen=True)
class _WithKeepPrintf(Options):
    """``Options`` with the field CONTRIBUTING's worked example adds (one declaration)."""

    keep_printf: bool = field(
        default=False,
        metadata=cli(
            "--keep-printf/--no-keep-printf",
            commands=TREE,
            help="Leave device printf calls as they are (default: convert them).",
            section="parse",
            config="keep-printf",
        ),
    )


@pytest.fixture
def keep_printf(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run the commands as if ``context.Options`` had the new field: the table and the
    commands are rebuilt from it, and back after the test."""
    modules = [importlib.import_module(f"hipify_py.cli.{m}") for m in RELOAD]
    monkeypatch.setattr(context, "Options", _WithKeepPrintf)
    try:
        for module in modules:
            importlib.reload(module)
        yield
    finally:
        monkeypatch.undo()
        config._DECLARED.pop("keep-printf", None)
        for module in modules:
            importlib.reload(module)


RELOAD = ("option_table", "common", "convert", "check", "report")


def test_a_new_field_is_an_option_of_its_commands_and_a_config_key(
    keep_printf: None, seen: list[Options], tmp_path: Path
) -> None:
    for name in ("convert", "check", "report"):
        result = CliRunner().invoke(root, [name, "--help"])
        assert "--keep-printf / --no-keep-printf" in result.output, name
    assert "--keep-printf" not in CliRunner().invoke(root, ["verify", "--help"]).output
    source = _project(tmp_path)
    for args in (["--keep-printf"], ["--no-keep-printf"], []):
        result = CliRunner().invoke(root, ["convert", "--dry-run", *args, str(source)])
        assert result.exit_code == 0, result.output
    assert [o.keep_printf for o in seen] == [True, False, False]
    (tmp_path / ".hipify-py.yaml").write_text("keep-printf: true\n")
    for args in (["check"], ["check", "--no-keep-printf"]):
        result = CliRunner().invoke(root, [*args, str(source)])
        assert result.exit_code == 0, result.output
    # the config sets it; the command line wins over the config
    assert [o.keep_printf for o in seen[3:]] == [True, False]


def test_after_the_new_field_its_option_is_gone() -> None:
    assert "keep_printf" not in {o.name for o in option_table.OPTIONS}
    assert "keep-printf" not in config.known_keys()
