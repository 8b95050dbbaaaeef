"""The lexer matches a file a slice at a time (``lexer._matches``): cut anywhere, the tokens
are those of one match over the whole text, on real sources and on the adversarial shapes."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from hipify_py.frontend import lexer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from adversarial import BY_NAME, sized  # noqa: E402

# shapes whose meaning a cut can change: literals, comments, raw strings, long operators
TRICKY = (
    'R"delim( ) " )delim" u8R"(x)" /* a */ // b \\\n c\n "s\\"t" \'c\' ... ->* <=> %:%: '
    "1.5e+3f .5 <<<a>>> x //\n#define A(x) x ## x\n"
)


def _whole(text: str) -> list[tuple[str, str, str, str]]:
    return lexer._TOKEN_RE.findall(text, 0)


def _sliced(text: str, size: int, monkeypatch: pytest.MonkeyPatch) -> list:
    monkeypatch.setattr(lexer, "_SLICE", size)
    return list(lexer._matches(text, 0))


def _sources() -> list[str]:
    files = sorted((ROOT / "tests").rglob("*.cu")) + sorted((ROOT / "examples").rglob("*.cu"))
    texts = [f.read_text(errors="surrogateescape") for f in files[:40]]
    texts += [sized(name, 3_000).decode() for name in BY_NAME]
    return [*texts, TRICKY * 20]


@pytest.mark.parametrize("size", [1, 7, 64, 100, 1000])
def test_any_cut_gives_the_tokens_of_the_whole_text(size, monkeypatch) -> None:
    for text in _sources():
        assert _sliced(text, size, monkeypatch) == _whole(text)


def test_random_cuts_of_random_token_soup(monkeypatch) -> None:
    rng = random.Random(24)
    pieces = TRICKY.replace("\n", " \n ").split(" ")
    for _ in range(30):
        text = " ".join(rng.choice(pieces) for _ in range(300))
        assert _sliced(text, rng.randint(1, 200), monkeypatch) == _whole(text)


def test_a_token_longer_than_a_slice_is_whole() -> None:
    text = "x /*" + "c" * (3 * lexer._SLICE) + "*/ y\n"
    kinds = [(t.kind, len(t.text)) for t in lexer.lex(text).comments]
    assert kinds == [(lexer.Kind.COMMENT, 3 * lexer._SLICE + 4)]
    assert [t.text for t in lexer.lex(text).tokens] == ["x", "y"]
