"""One source file as every rule sees it: text, tokens, comments, lines, and a lazy AST."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import chain

from ..edits import LineIndex
from ..mappings import Entry, MappingIndex
from .clang import Ast, crash_of, parse
from .density import parse_fits
from .directives import CONDITIONAL_NEXT, CONDITIONAL_OPEN, forget_lines, lines
from .lexer import Kind, Lexed, Token, lex
from .macros import expansion_estimate
from .syntax import (
    forget_brackets,
    know_brackets,
    launch_config_end,
    opener_width,
    token_text,
)

_DEEP = 48  # bracket depth beyond which a parse counts as risky
# Larger files are parsed in the capped child: libclang has quadratic paths (thousands of
# redeclarations of one name at file scope: 97 KB took 13 s in-process), and only the child's
# CPU limit bounds them.  Real files this large are few; each costs ~40 ms more.
_ISOLATED_FROM = 32 * 1024
# a run of line continuations this long makes a parse risky: libclang's lexer recurses per
# continuation and overflows its stack past about 60,000 of them (a segmentation fault)
_CONTINUATIONS = re.compile(r"(?:\\(?:\r\n?|\n)){1024}")
_SPACED_LAUNCH = re.compile(r"<<\s+<")
SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c", ".hip")

# literal-first patterns: a leading \b would make the search visit every byte of a long file
_HIP_CALL = re.compile(r"hip[A-Z]\w*\s*\(")
_HIP_INCLUDE = re.compile(r"#\s*include\s*[<\"]hip/")


def _has_hip_marker(text: str) -> bool:
    """A HIP runtime include, or a call of a ``hipXxx`` function (a whole word)."""
    if _HIP_INCLUDE.search(text):
        return True
    for m in _HIP_CALL.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        if not (before.isalnum() or before == "_"):
            return True
    return False


@dataclass
class Unit:
    path: str
    text: str
    mappings: MappingIndex
    clang_args: tuple[str, ...] = ()
    hermetic: bool = True
    # `NAME=VALUE` the rest of the tree fixes for the HIP build (``ProjectIndex.hip_values``):
    # settings of the branch evaluator below the file's own -D flags, not of the parse
    project_defines: tuple[str, ...] = ()
    # the names the rest of the tree leaves undefined for the HIP build
    # (``ProjectIndex.hip_undefined``), below the file's own -D flags
    project_undefined: frozenset[str] = frozenset()
    # the namespaces in which the rest of the tree declares its own constant named warpSize
    # (``ProjectIndex.warp_size_namespaces``)
    warp_size_namespaces: frozenset[tuple[str, int | None]] = frozenset()
    # the warp-size constants another file of the tree defines as 32, and none as another
    # value (``ProjectIndex.warp_constants``): their value where this file does not define them
    tree_warp_constants: frozenset[str] = frozenset()
    # the kernels every launch of which in the tree runs at most 32 threads a block, and the
    # device functions only they call (``ProjectIndex.block32_functions``): their launches
    # and callers may be in other files
    tree_block32_functions: frozenset[str] = frozenset()
    # the members of specializations the tree declares as types (``ProjectIndex.member_types``)
    tree_member_types: frozenset[str] = frozenset()
    # a file of the tree that includes HIP's runtime header reaches this one: the project's
    # own HIP build compiles it as written (``conditions.tests_hip_compiler``)
    hip_includers: bool = False
    _ast_error: str | None = field(default=None, init=False)

    @cached_property
    def lexed(self) -> Lexed:
        lexed = lex(self.text)
        know_brackets(lexed.tokens, lexed.brackets, lexed.balanced)
        return lexed

    @property
    def is_source(self) -> bool:
        """A translation unit's own file (`.cu`, `.cpp`, ...), not a header: what it defines
        and never uses, no other file uses either."""
        return self.path.endswith(SOURCE_SUFFIXES)

    @property
    def tokens(self) -> Sequence[Token]:
        """Code tokens (no comments) from every preprocessor branch."""
        return self.lexed.tokens

    @property
    def comments(self) -> Sequence[Token]:
        return self.lexed.comments

    @cached_property
    def newline(self) -> str:
        """The file's line ending, for text a rule inserts (CRLF, LF, or CR alone)."""
        text = self.text
        if "\r\n" in text:
            return "\r\n"
        return "\r" if "\r" in text and "\n" not in text else "\n"

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text)

    @property
    def directives(self) -> list[int]:
        """Indices in ``tokens`` of the '#' that starts each preprocessor line."""
        return self.lexed.directives

    def release(self) -> None:
        """Drop what shared modules keep for this unit's tokens (the bracket table, the
        preprocessor lines), so the tokens are freed with the unit."""
        lexed = self.__dict__.get("lexed")
        if lexed is not None:
            forget_brackets(lexed.tokens)
            forget_lines(lexed.tokens)

    def directive_word(self, i: int) -> str:
        """For a token on a preprocessor line, the directive's name (``include``, ``define``)."""
        tokens = self.tokens
        while i > 0 and tokens[i].kind is not Kind.DIRECTIVE:
            i -= 1
        nxt = i + 1
        return tokens[nxt].text if nxt < len(tokens) and tokens[nxt].in_directive else ""

    def first_token_from(self, offset: int) -> int:
        """Index of the first token that starts at or after ``offset`` (``len(tokens)`` if
        none): a binary search, no list of offsets built per question."""
        return bisect.bisect_left(self.lexed.starts, offset)

    def token_covering(self, offset: int) -> int:
        """Index of the last token that starts at or before ``offset`` (-1 if none)."""
        return bisect.bisect_right(self.lexed.starts, offset) - 1

    @cached_property
    def launch_openers(self) -> list[int]:
        """Indices in ``tokens`` of every `<<<` (code or macro body), from the lexer's operator
        index (a search of the text for each one cost a bisection per `<<<`)."""
        return self.operators_spelled(["<<<"])

    @cached_property
    def spaced_launch_openers(self) -> list[int]:
        """Indices of the ``<<`` of each ``<< <``: a launch as clang-format may leave it
        (``k << <grid, block >> > (x)``)."""
        if not _SPACED_LAUNCH.search(self.text):
            return []
        tokens = self.tokens
        return [i for i in self.operators_spelled(["<<"]) if opener_width(tokens, i) == 2]

    @cached_property
    def launch_config_ends(self) -> dict[int, int | None]:
        """For each launch opener (``launch_openers`` and ``spaced_launch_openers``), the
        index of the last token of the ``>>>`` that closes its configuration (None: not a
        launch).  Found last opener first, so a scan that meets a nested launch jumps over it,
        or gives up with it: linear in the tokens, also for thousands of unclosed ``<<<``."""
        ends: dict[int, int | None] = {}
        for chevron in sorted(self.launch_openers + self.spaced_launch_openers, reverse=True):
            ends[chevron] = launch_config_end(self.tokens, chevron, ends)
        return ends

    @property
    def identifier_positions(self) -> dict[str, list[int]]:
        """Identifier -> indices in ``tokens`` where it occurs, so a rule that looks for a few
        names visits only their occurrences instead of scanning every token."""
        return self.lexed.identifiers

    def operators_spelled(self, texts: Iterable[str]) -> list[int]:
        """Indices of the operator tokens spelled as one of ``texts`` (punctuators other than
        ``( ) [ ] { } ; , ? ~``), ascending: read from the lexer's index, not by a scan."""
        index = self.lexed.operators
        return sorted(chain.from_iterable(index.get(text, ()) for text in texts))

    @cached_property
    def identifiers(self) -> frozenset[str]:
        return frozenset(self.identifier_positions)

    @cached_property
    def identifier_lines(self) -> str:
        """The file's distinct identifiers, one per line: a pattern anchored with ``^...$``
        under ``re.M`` finds those it matches in one search, not one match call per name."""
        return "\n".join(self.identifiers)

    @cached_property
    def mapped(self) -> dict[str, Entry]:
        """The file's identifiers that the mapping tables know, with their entries (the one
        lookup every rule shares)."""
        return self.mappings.known(self.identifiers)

    @cached_property
    def is_hip(self) -> bool:
        """True for a file already written in HIP (hazards are checked on both sides)."""
        return _has_hip_marker(self.text) and not any(
            name.startswith("cuda") for name in self.mapped
        )

    @cached_property
    def ast(self) -> Ast | None:
        """The libclang AST, parsed on first use; None if libclang could not parse at all.

        Rules should look at tokens first and touch this only for candidate sites: parsing is
        the most expensive step of a conversion.
        """
        attempt = partial(
            parse,
            self.text,
            self.path,
            sorted(self.identifiers),
            self.mappings,
            hermetic=self.hermetic,
            args=self.clang_args,
            lexed=self.lexed,
        )
        if not parse_fits(len(self.text), len(self.tokens)):
            self._ast_error = (
                f"a parse of its {len(self.text):,} characters would take libclang past 20 "
                "times the file's size in memory; not parsed"
            )
            return None
        expanded = expansion_estimate(self.tokens, self.directives, self.parse_budget)
        if expanded > self.parse_budget:
            self._ast_error = f"its macros expand to over {self.parse_budget:,} tokens; not parsed"
            return None
        try:
            if self.risky:
                crash = crash_of(attempt, len(self.text))
                if crash is not None:
                    self._ast_error = crash
                    return None
            return attempt()
        except Exception as exc:  # libclang load or parse failure: degrade to tokens only
            self._ast_error = f"{type(exc).__name__}: {exc}"
            return None

    @property
    def parse_budget(self) -> int:
        """Tokens a parse may expand to: ample for real code (its own macros seldom expand a
        file fourfold), far below what a macro bomb makes.  libclang holds about 110 bytes an
        expanded token, so the fixed part (400,000: ~44 MiB) keeps a small file's parse within
        the 64 MiB every file may use."""
        return 400_000 + 4 * len(self.tokens)

    @cached_property
    def looks_broken(self) -> bool:
        """Unbalanced brackets in code, or an unterminated literal or comment."""
        text = self.text
        tokens = self.tokens
        literals = [tokens[i] for i in self.lexed.literals]
        for tok in literals:
            if len(tok.text) < 2 or tok.text[-1] not in "\"')":
                return True
        for tok in self.comments:
            if tok.text.startswith("/*") and not tok.text.endswith("*/"):
                return True
        if self.lexed.balanced:  # every bracket has its partner, in code and in directives
            return False
        # brackets that are not code: inside literals, comments and preprocessor lines (found
        # from the lexer's indexes, not by visiting every token)
        not_code = [tok.text for tok in literals if not tok.in_directive]
        for line in lines(tokens, self.directives):
            not_code += map(token_text, tokens[line.at : line.after])
        not_code += map(token_text, self.comments)
        skipped = "".join(not_code)
        return (
            any(
                text.count(o) - skipped.count(o) != text.count(c) - skipped.count(c)
                for o, c in ("()", "[]", "{}")
            )
            and not self._balanced_in_first_branches()
        )

    def _balanced_in_first_branches(self) -> bool:
        """Brackets balance when each ``#if`` group gives only its first branch.

        ``#ifdef DUMP`` / ``for (...) {`` / ``#else`` / ``for (...) {`` / ``#endif`` opens one
        block for the compiler but two for a count over every branch; calling that broken
        would report the parse errors of a file nvcc compiles."""
        tokens = self.tokens
        opens = dict.fromkeys("([{", 0)
        branch: list[int] = []  # per open conditional: which of its branches we are in
        start = 0
        for line in [*lines(tokens, self.directives), None]:
            if not any(branch):
                _count_brackets(tokens[start : line.at if line else len(tokens)], opens)
            if line is None:
                break
            start = line.after
            if line.word in CONDITIONAL_OPEN:
                branch.append(0)
            elif line.word in CONDITIONAL_NEXT and branch:
                branch[-1] += 1
            elif line.word == "endif" and branch:
                branch.pop()
        return not any(opens.values())

    @cached_property
    def risky(self) -> bool:
        """Input of the kind libclang has crashed on or spent long on (broken, deeply nested,
        NUL bytes, long runs of line continuations, over 32 KiB): its parse is tried in a
        child process first.  Other text
        is not: UTF-8 (a comment in another language) is ordinary source, and bytes that are
        not UTF-8 reach libclang as '?' (``parse``)."""
        if len(self.text) > _ISOLATED_FROM or self.looks_broken or "\0" in self.text:
            return True
        if _CONTINUATIONS.search(self.text):
            return True
        depth = deepest = 0
        for tok in self.tokens:
            if tok.kind is Kind.PUNCT:
                if tok.text in "([{":
                    depth += 1
                    deepest = max(deepest, depth)
                elif tok.text in ")]}":
                    depth -= 1
        return deepest > _DEEP

    def line_text(self, line: int) -> str:
        start, end = self.lines.line_span(line)
        return self.text[start:end]


_CLOSING = {")": "(", "]": "[", "}": "{"}


def _count_brackets(tokens: Sequence[Token], opens: dict[str, int]) -> None:
    """Add the code brackets of ``tokens`` to ``opens`` (an opening one +1, its closing one
    -1); brackets in directives do not count."""
    for tok in tokens:
        if tok.kind is Kind.PUNCT and not tok.in_directive:
            if tok.text in opens:
                opens[tok.text] += 1
            elif tok.text in _CLOSING:
                opens[_CLOSING[tok.text]] -= 1
