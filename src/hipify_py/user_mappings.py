"""User mapping rules: from the project config (``mappings:`` in ``.hipify-py.yaml`` or
``[tool.hipify-py]``) and from ``--mapping FILE``.

User rules are untrusted input: each file is read once (regular files only, size and nesting
limited, no YAML aliases) and every emitted name (``hip:``/``roc:``) must be a C/C++ identifier
or header path, so a rule cannot put code into the output.  Rules travel as ``RulesText`` (label
and bytes) to the worker processes, in memory: nothing is written to a temp file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .config import Config
from .mappings.load import RulesText
from .mappings.schema import CUDA_NAME_RE, HEADER_PATH_RE, MappingError, validate_file
from .untrusted import UntrustedInputError, load_yaml, read_regular

RULES_LIMIT = 16 * 1024 * 1024  # bytes in one user mapping file
EMITTED_KEYS = ("hip", "roc")


# C and C++ keywords and operators (and the compilers' spellings of asm, attributes, typeof
# and _Pragma): a rule that emits one puts code, not a name, into the output (``hip: delete``,
# ``hip: __asm__``, ``hip: _Pragma``)
KEYWORDS = frozenset(
    "alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t "
    "char16_t char32_t class co_await co_return co_yield compl concept const consteval "
    "constexpr constinit const_cast continue decltype default delete do double dynamic_cast "
    "else enum explicit export extern false float for friend goto if inline int long mutable "
    "namespace new noexcept not not_eq nullptr operator or or_eq private protected public "
    "register reinterpret_cast requires return short signed sizeof static static_assert "
    "static_cast struct switch template this thread_local throw true try typedef typeid "
    "typename union unsigned using virtual void volatile wchar_t while xor xor_eq restrict "
    "_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert "
    "_Thread_local __asm __asm__ __attribute__ __declspec __builtin_asm _Pragma __attribute "
    "__extension__ typeof __typeof __typeof__ __volatile__ __restrict __restrict__ __inline "
    "__inline__".split()
)
# kinds whose HIP name may be namespace-qualified (``hipcub::BlockReduce``, ``at::hip::...``);
# never into the C++ standard library, which is no HIP API (``hip: std::system``)
SCOPED_KINDS = frozenset(("type", "function", "namespace"))


def emitted_name_problem(kind: str | None, value: str) -> str | None:
    """Why ``value`` may not be what a rule of ``kind`` writes into the output, or None."""
    if kind == "header":
        if not HEADER_PATH_RE.fullmatch(value) or ".." in value.split("/"):
            return "is not a header path"
        return None
    if not CUDA_NAME_RE.fullmatch(value):
        return "is not a C/C++ identifier"
    parts = value.removeprefix("::").split("::")
    if len(parts) > 1 and (kind not in SCOPED_KINDS or parts[0] == "std"):
        return f"is a qualified name, allowed only for {', '.join(sorted(SCOPED_KINDS))} kinds"
    keyword = next((p for p in parts if p in KEYWORDS), None)
    return f"is (or holds) the keyword {keyword!r}" if keyword else None


def check_emitted_names(doc: dict[str, Any], label: str) -> None:
    """Every ``hip:``/``roc:`` value is an identifier that is not a keyword (a header path for
    headers; a qualified name only for kinds that have them)."""
    for i, entry in enumerate(doc.get("entries") or []):
        for key in EMITTED_KEYS:
            value = entry.get(key)
            problem = None if value is None else emitted_name_problem(entry.get("kind"), value)
            if problem:
                raise MappingError(
                    f"{label}: entry {i} ({entry.get('cuda')}): field '{key}': {value!r} {problem}"
                )


def read_rules(path: Path) -> RulesText:
    """One user mapping file, read once and validated."""
    try:
        data = read_regular(path, RULES_LIMIT)
        doc = load_yaml(path, data)
    except UntrustedInputError as exc:
        raise MappingError(str(exc)) from None
    validate_file(doc, str(path))
    check_emitted_names(doc, str(path))
    return RulesText(str(path), data)


def inline_rules(config: Config) -> RulesText:
    """``mappings:`` entries written in the config itself, as an in-memory mapping file."""
    import yaml

    assert config.path is not None
    label = f"{config.path}: field 'mappings'"
    doc = {"family": "user", "title": f"rules from {config.path}", "source": str(config.path)}
    doc["entries"] = list(config.inline_mappings)  # type: ignore[assignment]
    # Validated here, so an error names the config file the user wrote.
    validate_file(doc, label)
    check_emitted_names(doc, label)
    return RulesText(str(config.path), yaml.safe_dump(doc, sort_keys=False).encode("utf-8"))


def user_rules(config: Config, extra: Sequence[Path] = ()) -> list[RulesText]:
    """Every user rule that applies: the project config's, then ``--mapping`` files (which
    win over the config's)."""
    out = [read_rules(p) for p in config.mapping_paths]
    if config.inline_mappings:
        out.append(inline_rules(config))
    return out + [read_rules(p) for p in extra]
