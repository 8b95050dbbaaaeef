"""What a command-line option's one declaration (in ``cli/option_table.py``) says.

A declaration says everything the code needs about one option: its flag names, help, click
type and default, the commands that take it, the ``Options`` fields it sets and, when the
project config can say the same thing, its config-file key.  The click decorators of
``convert``/``check``/``report``/``verify``, the ``Options`` a command line builds, the
fields a ``check --in-sync`` flag overrides in a manifest, the flags a porting report names and
the config file's keys are all read from that one list, so they cannot drift apart.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import click

from .. import config
from ..option_spec import CliFlag


@dataclass(frozen=True)
class Option:
    """One option of one or more commands.

    ``name`` is the keyword the command receives; ``decls`` the flag names as ``click.option``
    takes them (the name is added).  ``attrs`` are click's keyword arguments (type, default,
    ``is_flag``, ``multiple``, ``metavar``, ``callback``, ...).  ``fields`` are the
    ``Options`` fields the option sets, by ``sets`` (value -> fields) or, without it, by
    giving each field the value.  ``config`` is the project-config key that says the same
    thing (the command line wins).  ``conversion``: whether a porting report names the option
    among those the code was converted with.
    """

    name: str
    decls: tuple[str, ...]
    commands: frozenset[str]
    help: str = ""
    attrs: Mapping[str, Any] = field(default_factory=dict)
    fields: tuple[str, ...] = ()
    sets: Callable[[Any], Mapping[str, Any]] | None = None
    config: str | None = None
    conversion: bool = True

    def decorator(self) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        return click.option(*self.decls, self.name, help=self.help, **self.attrs)

    def options_fields(self, value: Any) -> Mapping[str, Any]:
        """The ``Options`` fields this option's ``value`` sets."""
        if self.sets is not None:
            return self.sets(value)
        return {name: value for name in self.fields}

    def given(self, value: Any) -> bool:
        """Whether ``value`` differs from the default (an option the user asked for)."""
        default = self.attrs.get("default", () if self.attrs.get("multiple") else None)
        if self.attrs.get("is_flag") and default is None:
            default = False
        return value != default


def clash(a: Option, b: Option) -> bool:
    """Two options of one command with one name (``--syntax``/``--codegen``, two values of
    one parameter, excepted)."""
    alternatives = "flag_value" in a.attrs and "flag_value" in b.attrs
    return a.name == b.name and bool(a.commands & b.commands) and not alternatives


def config_kind(option: Option) -> config.ValueKind:
    """What the option's config key holds: what its flag takes (an on/off flag is a flag)."""
    attrs = option.attrs
    choice = attrs.get("type")
    choices = tuple(choice.choices) if isinstance(choice, click.Choice) else None
    if attrs.get("is_flag") or "/" in option.decls[0]:
        return config.ValueKind("flag", choices)
    return config.ValueKind("list" if attrs.get("multiple") else "text", choices)


def field_option(f: dataclasses.Field[Any], flag: CliFlag) -> Option:
    """The ``Option`` an ``Options`` field declares (``option_spec.cli``): its click
    attributes and how its value sets the field follow from the field's default."""
    default = f.default
    attrs: dict[str, Any] = {}
    if flag.metavar is not None:
        attrs["metavar"] = flag.metavar
    if flag.default_text is not None:  # the default as it is written on the command line
        attrs |= {"default": flag.default_text, "show_default": True}
    elif isinstance(default, tuple):  # repeatable (each value parsed, if the flag parses)
        attrs["multiple"] = True
    elif "/" in flag.decls[0] or flag.parse is not None:
        attrs["default"] = None  # not given: the field keeps its default (or the config's)
    elif isinstance(default, bool):
        attrs["is_flag"] = True
    else:
        attrs |= {"default": default, "show_default": True}
    if flag.choices:
        attrs["type"] = click.Choice(flag.choices)
    return Option(
        f.name,
        flag.decls,
        flag.commands,
        flag.help,
        attrs,
        fields=(f.name, *flag.also),
        sets=_setter(f.name, flag),
        config=flag.config,
        conversion=flag.conversion,
    )


def _setter(name: str, flag: CliFlag) -> Callable[[Any], Mapping[str, Any]]:
    """Value given -> the fields it sets: none when not given (None, or no value of a
    repeatable option), ``parse``d when the flag parses (each value of a repeatable one),
    the ``also`` fields with a flag."""

    def sets(value: Any) -> Mapping[str, Any]:
        if value is None or value == ():
            return {}
        if flag.parse is not None:
            try:
                value = _parsed(flag.parse, value)
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint=flag.decls[0]) from None
        return {name: value, **{other: value for other in flag.also if value}}

    return sets


def _parsed(parse: Callable[[str], Any], value: Any) -> Any:
    """A parsing flag's value: each value of a repeatable one, parsed on its own."""
    return tuple(map(parse, value)) if isinstance(value, tuple) else parse(value)
