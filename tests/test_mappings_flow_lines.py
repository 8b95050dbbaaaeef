"""The fast table reader reads what PyYAML reads, or leaves the file to PyYAML."""

from __future__ import annotations

import random

import pytest
import yaml

from hipify_py.mappings import flow_lines
from hipify_py.mappings.load import shipped_files

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
HEAD = "# a table\nfamily: runtime\ntitle: T\nsource: s\npriority: 3\nentries:\n"


def _pyyaml(data: bytes):
    try:
        return yaml.load(data, Loader=LOADER)
    except yaml.YAMLError:
        return "error"


@pytest.mark.parametrize("path", shipped_files(), ids=lambda p: p.name)
def test_every_shipped_table_is_read_fast_and_as_pyyaml_reads_it(path):
    data = path.read_bytes()
    fast = flow_lines.load(data, LOADER)
    assert fast is not None, "a shipped table left the one-entry-per-line form"
    assert fast == _pyyaml(data)
    assert list(fast) == list(_pyyaml(data))  # key order too: errors name the first bad key


@pytest.mark.parametrize(
    "line, value",
    [
        ("- {cuda: at::cuda::getStream, kind: function}", "at::cuda::getStream"),
        ("- {cuda: x, note: 'it''s, a: b'}", "it's, a: b"),
        ('- {cuda: x, note: "a, b: c # d"}', "a, b: c # d"),
        ("- {cuda: x, section: Device Management}", "Device Management"),
        ("- {cuda: x, hip_added: 1.6.0}", "1.6.0"),
        ("- {cuda: x, cuda: y}", "y"),  # a repeated key: the last one wins, as in PyYAML
    ],
)
def test_lines_in_the_form_are_read_fast(line, value):
    data = f"{HEAD}{line}\n# a comment\n\n".encode()
    fast = flow_lines.load(data, LOADER)
    assert fast == _pyyaml(data)
    assert value in fast["entries"][0].values()


@pytest.mark.parametrize(
    "text",
    [
        HEAD + "- {cuda: x, hip: true}\n",  # a bool
        HEAD + "- {cuda: x, cuda_added: 7.0}\n",  # a float
        HEAD + "- {cuda: x, hip: ~}\n",  # a null
        HEAD + "- {cuda: x, on: y}\n",  # a key YAML reads as a bool
        HEAD + '- {cuda: x, note: "tab\\t"}\n',  # an escape
        HEAD + "- {cuda: x} # trailing comment\n",
        HEAD + "- {cuda: x}\npriority: 5\n",  # a key after the entries
        HEAD + "- {cuda: x}\r\n",
        HEAD + "- cuda: x\n  kind: function\n",  # block style
        HEAD.replace("entries:\n", "entries: []\n"),
        "\ufeff" + HEAD + "- {cuda: x}\n",
    ],
)
def test_anything_else_is_left_to_pyyaml(text):
    assert flow_lines.load(text.encode(), LOADER) is None


def test_a_mangled_block_is_never_read_otherwise_than_pyyaml_reads_it():
    """Characters YAML gives a meaning to, dropped into real rows at random: the fast reader
    either declines or agrees with PyYAML (including when PyYAML calls it an error)."""
    rows = [
        "- {cuda: cudaMemcpy2DAsync, hip: hipMemcpy2DAsync, kind: function, status: supported, "
        "section: Memory Management, note: 'a note', hip_added: 1.6.0}",
        '- {cuda: at::cuda::getStream, kind: function, status: unsupported, note: "a, b: c"}',
    ]
    specials = list(":#,'\"{}[]&*!|>%@?-~ \\.0123456789\n") + ["::", ", ", ": ", "\n#", "true"]
    rng = random.Random(7)
    read_fast = 0
    for _ in range(3000):
        block = "\n".join(rng.sample(rows, rng.choice((1, 2))))
        at = rng.randrange(len(block) + 1)
        block = block[:at] + rng.choice(specials) + block[at + rng.choice((0, 0, 1, 2)) :]
        data = (HEAD + block + "\n").encode()
        fast = flow_lines.load(data, LOADER)
        if fast is not None:
            read_fast += 1
            assert fast == _pyyaml(data), block
    assert read_fast > 300  # the form is not so narrow that nothing is read fast
