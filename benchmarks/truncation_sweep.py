"""Every fuzz seed cut after each of its tokens, through convert and check: no rule may raise.

Usage: python benchmarks/truncation_sweep.py [--jobs 2]

Random mutation reaches "the file ends right after this token" only by luck, and that is where
rules index one token too far (``toks[i + 1]`` after the last operator).  This sweep tries every
such end systematically: each seed of ``tests/_mutations.py`` (the CUDA sources of ``tests/``
and ``examples/``), truncated after token 1, 2, ..., n.  It prints the first input of each
distinct rule error (seed number and cut offset) and exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _mutations import seeds  # noqa: E402
from hipify_py.context import Context, Options  # noqa: E402
from hipify_py.frontend.lexer import lex  # noqa: E402
from hipify_py.mappings import load_index  # noqa: E402
from hipify_py.pipeline import check_result, convert_text  # noqa: E402

_ctx: Context | None = None


def rule_errors(number: int) -> list[tuple[int, int, str]]:
    """(seed, cut offset, error) for every cut of seed ``number`` on which a rule raised."""
    global _ctx
    if _ctx is None:
        _ctx = Context(Options(), load_index())
    text = seeds()[number].decode("utf-8", "surrogateescape")
    found = []
    for tok in lex(text).tokens:
        cut = text[: tok.end]
        errors = [*convert_text(cut, "m.cu", _ctx).rule_errors]
        errors += check_result(cut, "m.cu", _ctx).rule_errors
        if errors:
            found.append((number, tok.end, errors[0]))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    count = len(seeds())
    distinct: dict[str, tuple[int, int]] = {}
    with mp.Pool(args.jobs) as pool:
        for found in pool.imap_unordered(rule_errors, range(count)):
            for number, end, error in found:
                if error not in distinct:
                    distinct[error] = (number, end)
                    print(f"seed {number} cut at {end}: {error}", flush=True)
    cuts = sum(len(lex(s.decode("utf-8", "surrogateescape")).tokens) for s in seeds())
    print(f"{count} seeds, {cuts} cuts, {len(distinct)} distinct rule errors")
    return 1 if distinct else 0


if __name__ == "__main__":
    sys.exit(main())
