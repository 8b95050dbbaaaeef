"""The lexer's memory savings change nothing: it matches a file a slice at a time
(``lexer._matches``), and cut anywhere the tokens are those of one match over the whole text;
a large file's tokens stay packed (``lexer.Tokens``) and read, convert and check as the list
of a small file does."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from _convert import ctx, result
from hipify_py import edits
from hipify_py.frontend import lexer
from hipify_py.pipeline import check_result

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from adversarial import BY_NAME, sized  # noqa: E402

# shapes whose meaning a cut can change: literals, comments, raw strings, long operators
TRICKY = (
    'R"delim( ) " )delim" u8R"(x)" /* a */ // b \\\n c\n "s\\"t" \'c\' ... ->* <=> %:%: '
    "1.5e+3f .5 <<<a>>> x //\n#define A(x) x ## x\n"
)


def _whole(text: str) -> list[tuple[str, str, str, str]]:
    """The whole text's matches up to its end: the empty matches there (the end, after white
    space or not) are no tokens, and ``_matches`` leaves them out."""
    found = lexer._TOKEN_RE.findall(text, 0)
    last = len(found)
    while last and found[last - 1][1:3] == ("", ""):
        last -= 1
    assert last < len(found)  # the text's end is among the matches
    return found[:last]


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


def test_packed_tokens_read_as_the_list(monkeypatch) -> None:
    for text in _sources():
        listed = lexer.lex(text).tokens
        monkeypatch.setattr(lexer, "PACK_FROM", 0)
        packed = lexer.lex(text).tokens
        monkeypatch.undo()
        assert isinstance(packed, lexer.Tokens) and isinstance(listed, list)
        assert list(packed) == listed and len(packed) == len(listed)
        n = len(listed)
        for i in (0, n // 3, n - 1, -1, -n):
            assert packed[i] == listed[i]
        assert packed[n // 4 : n // 2] == listed[n // 4 : n // 2] and packed[-3:] == listed[-3:]
        with pytest.raises(IndexError):
            packed[n]


def test_a_packed_file_converts_and_checks_as_a_listed_one(monkeypatch) -> None:
    files = sorted((ROOT / "examples").rglob("*.cu")) + sorted((ROOT / "tests").rglob("*.cu"))
    texts = [f.read_text(errors="surrogateescape") for f in files[:25]]
    for text in [*texts, sized("many_ifs", 5_000).decode(), sized("many_launches", 5_000).decode()]:
        listed = (result(text), check_result(text, "t.cu", ctx()))
        monkeypatch.setattr(lexer, "PACK_FROM", 0)
        packed = (result(text), check_result(text, "t.cu", ctx()))
        monkeypatch.undo()
        assert packed[0].text == listed[0].text
        for a, b in zip(packed, listed, strict=True):
            assert a.findings == b.findings and a.rule_errors == b.rule_errors


def test_line_index_split_a_slice_at_a_time_is_the_whole_split(monkeypatch) -> None:
    rng = random.Random(7)
    texts = ["", "a", "\n", "ab\ncd\n", "\n" * 5, *_sources()[:5]]
    texts += ["".join(rng.choice("ab\n") for _ in range(rng.randint(0, 200))) for _ in range(100)]
    for size in (1, 3, 64, 1 << 20):
        monkeypatch.setattr(edits, "_SLICE", size)
        for text in texts:
            assert list(edits._line_lengths(text)) == [len(x) for x in text.split("\n")]
            ends = list(edits.LineIndex(text)._ends)
            assert ends == [i for i, c in enumerate(text) if c == "\n"] or "\r" in text
