"""How many tokens a file will make, known before it is lexed: the token pipeline costs about
300 bytes of memory and a few microseconds per token, so a file dense in tokens (``;;;;``, one
line of ``int aN = N;``) of a few MB would need 100-200 times its size and minutes.  Such a file
is converted by name only (``rewrite._names_only``) and reported "not analysed".

The estimate is a few C-speed passes over the bytes (translate, count): characters that are
neither letters, digits, white space nor backslashes (line continuations) each count as one
token, less two per ``<<<``, and each run of letters and digits as one more.  It over-counts
comments, literals and two-character operators, so such code reaches the budget a little
early, never late.
"""

from __future__ import annotations

# What a token costs through every pass with hazards, edits and findings included (measured
# 100-243 bytes on 0.5-2.4 MB files, packed tokens; see docs/robustness.md), and the most the
# issue allows: 20 times the file's size, beyond the 64 MiB the interpreter's heap moves by.
BYTES_PER_TOKEN = 250
MEMORY_FACTOR = 20
MEMORY_FLOOR = 64 << 20
PARSE_BYTES_PER_CHAR = 80  # libclang's syntax tree (36-82 measured)
# tokens the pipeline gets through in 10 CPU seconds (measured: 3-12 microseconds a token,
# the most for packed tokens that a pass reads one by one, as the launch rewrite does)
MAX_TOKENS = 600_000

_WORD, _SPACE, _OTHER = b"a", b" ", b"."
_CLASSES = bytes(
    _WORD[0]
    if chr(b).isalnum() or b in b"_$" or b >= 0x80
    else _SPACE[0]
    if chr(b).isspace() or b == ord("\\")
    else _OTHER[0]
    for b in range(256)
)


def token_estimate(text: str) -> int:
    """About how many tokens ``text`` makes (at least as many as the lexer's, but for a word
    split by a non-ASCII character)."""
    classes = text.encode("utf-8", "surrogateescape").translate(_CLASSES)
    words = classes.count(b" a") + classes.count(b".a") + classes.startswith(_WORD)
    return classes.count(_OTHER) - 2 * text.count("<<<") + words


def token_budget(size: int) -> int:
    """The most tokens a file of ``size`` characters may make and still go through the token
    pipeline within 20 times its size in memory and about 10 s."""
    return min(MAX_TOKENS, (MEMORY_FACTOR * size + MEMORY_FLOOR) // BYTES_PER_TOKEN)


def parse_fits(chars: int, tokens: int) -> bool:
    """Whether libclang may parse a file of ``chars`` characters and ``tokens`` tokens and stay
    within 20 times its size: its syntax tree takes 40-80 bytes a character (measured on
    HeCBench's 2.4 MB CImg.h: 196 MiB), on top of the tokens.  A file over it is analysed from
    tokens alone and reported "not analysed" where a rule needed the tree."""
    need = PARSE_BYTES_PER_CHAR * chars + BYTES_PER_TOKEN * tokens
    return need <= MEMORY_FACTOR * chars + MEMORY_FLOOR


def too_dense(text: str) -> str | None:
    """Why ``text`` is converted by name only (None: it is not)."""
    budget = token_budget(len(text))
    if len(text) < budget:  # fewer characters than the budget: fewer tokens too
        return None
    tokens = token_estimate(text)
    if tokens <= budget:
        return None
    return (
        f"not analysed: about {tokens:,} tokens, over the {budget:,} a file of "
        f"{len(text):,} characters may make (memory and time stay within 20 times its "
        "size and 10 s), so only its CUDA names were renamed (no launches, headers, "
        "arguments or hazards)"
    )
