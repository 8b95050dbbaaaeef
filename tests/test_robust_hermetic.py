"""libclang reads nothing on disk in the hermetic parse, and never a non-regular file.

Each include spelling is parsed in a child process (an open FIFO or /dev/stdin would block it, and
/dev/zero would eat memory), which reports every file libclang included and whether the marker
of an outside file reached a diagnostic.  The parent gives up after a timeout, which fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from hipify_py.frontend.hermetic import blank_file_access

FORMS = (
    '#include "{t}"',
    "#include <{t}>",
    '%:include "{t}"',
    '#/**/include "{t}"',
    '#\\\ninclude "{t}"',
    '# /* a */ include \\\n "{t}"',
    '#include /* a\n */ "{t}"',
    '#include_next "{t}"',
    '#import "{t}"',
    '#embed "{t}"',
    '#pragma GCC dependency "{t}"',
    '_Pragma("GCC dependency \\"{t}\\"")',
    '#if __has_include("{t}")\nint has;\n#endif',
    '#define H "{t}"\n#include H',
    '\0#include "{t}"',
    '\u00a0#include "{t}"',
)

CHILD = textwrap.dedent(
    """
    import json, sys
    from hipify_py.frontend.unit import Unit
    from hipify_py.mappings import load_index
    cases = json.loads(sys.argv[1])
    index = load_index()
    out = []
    for text, hermetic, args in cases:
        unit = Unit("/tmp/k.cu", text, index, clang_args=tuple(args), hermetic=hermetic)
        ast = unit.ast
        files = sorted({i.include.name for i in ast.tu.get_includes()}) if ast else []
        leaked = any("LEAKED" in d.message for d in ast.diagnostics) if ast else False
        out.append([files, leaked])
    print(json.dumps(out))
    """
)


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("outside")
    secret = tmp / "secret.h"
    secret.write_text("#error LEAKED\n")
    fifo = tmp / "fifo.h"
    os.mkfifo(fifo)
    return tmp, ["/etc/passwd", "/dev/stdin", str(fifo), "/dev/zero", str(secret)]


def _parse_in_child(cases: list) -> list:
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(cases)],
        stdin=subprocess.PIPE,  # kept open: a read of /dev/stdin would block, not see EOF
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            out, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("libclang blocked on an include (FIFO or /dev/stdin opened)")
    assert proc.returncode == 0
    return json.loads(out)


def _only_stub(files: list[str]) -> bool:
    return all(f.startswith("/__hipify_py__/") for f in files)


def test_hermetic_parse_opens_no_file_whatever_the_include_spelling(targets):
    _, paths = targets
    cases = [
        [f"int before;\n{form.format(t=t)}\nint after;\n", True, []]
        for form in FORMS
        for t in paths
    ]
    for (text, _, _), (files, leaked) in zip(cases, _parse_in_child(cases), strict=True):
        assert _only_stub(files), (text, files)
        assert not leaked, text


def test_user_flags_keep_regular_headers_but_never_open_special_files(targets):
    tmp, paths = targets
    args = [f"-I{tmp}"]
    special = [p for p in paths if not p.endswith(("secret.h", "passwd"))]
    cases = [[f"{form.format(t=t)}\nint x;\n", False, args] for t in special for form in FORMS]
    cases.append(['#include "fifo.h"\nint x;\n', False, args])  # found through -I
    cases.append(['#include "secret.h"\nint x;\n', False, args])  # a regular header: kept
    results = _parse_in_child(cases)
    for (text, _, _), (files, _) in zip(cases[:-1], results[:-1], strict=True):
        assert _only_stub(files), (text, files)
    files, leaked = results[-1]
    assert any(f.endswith("secret.h") for f in files) and leaked


def test_blanking_keeps_offsets_and_line_numbers():
    src = (
        '#include "a.h"\n#/**/include \\\n "b.h"\nint x; // __has_include\n#if __has_include(<c>)\n'
    )
    out = blank_file_access(src)
    assert len(out) == len(src)
    assert out.count("\n") == src.count("\n")
    assert "int x;" in out and "#if 0" in out and "include" not in out.split("//")[0]
