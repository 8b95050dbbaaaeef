"""Config files, mapping files and trees are untrusted input (issue 13, item 9): each problem is
a one-line error and a non-zero exit, never a traceback, a hang or code in the output."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from _convert import ctx
from hipify_py.config import Config, ConfigFileError, find_config_file
from test_convert_cli import KERNEL, cli

ALIAS_BOMB = (
    'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "ignore: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "proj" / "src").mkdir()
    (tmp_path / "proj" / "src" / "k.cu").write_text(KERNEL)
    return tmp_path / "proj"


def one_line(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        (ALIAS_BOMB, "aliases"),
        ("ignore: " + "[" * 200 + "]" * 200 + "\n", "nested deeper"),
        ("ignore: [HZ1]\nignor: [HZ2]\n", "unknown key `ignor` (did you mean `ignore`?)"),
        ("ignore: [" + "9" * 5000 + "]\n", "digits"),
        ("ignore: [12]\n", "int 12 is not a rule ID"),
        ("ignore: {a: 1}\n", "`ignore` must be a list"),
        ("per-file-ignores: [1]\n", "`per-file-ignores` must be a mapping"),
        ("mappings: 3\n", "`mappings` must be a list"),
        ("- 1\n", "expected a mapping at the top level"),
    ],
)
def test_bad_config_is_one_line_and_fast(project: Path, text: str, expect: str) -> None:
    (project / ".hipify-py.yaml").write_text(text)
    for command in ("check", "convert"):
        started = time.monotonic()
        proc = cli(command, str(project / "src"))
        assert time.monotonic() - started < 30
        assert expect in one_line(proc)


def test_alias_bomb_in_config_is_398_bytes_and_fails_fast(tmp_path: Path) -> None:
    path = tmp_path / ".hipify-py.yaml"
    path.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 400
    started = time.monotonic()
    with pytest.raises(ConfigFileError, match="aliases"):
        Config.load(path)
    assert time.monotonic() - started < 10  # a hang guard: expanding the bomb would take minutes


def test_pyproject_table_unknown_key_and_deep_nesting(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.hipify-py]\nignroe = ["HZ1"]\n')
    assert "unknown key `ignroe`" in one_line(cli("check", str(project / "src")))
    (project / "pyproject.toml").write_text("[tool.hipify-py]\nignore = " + "[" * 50 + "]" * 50)
    assert "nested deeper" in one_line(cli("check", str(project / "src")))


def test_config_is_found_only_up_to_the_project_root(project: Path, tmp_path: Path) -> None:
    # A config above the repository (here: beside it) does not apply, however permissive.
    (tmp_path / ".hipify-py.yaml").write_text("ignore: [ALL]\n")
    assert find_config_file(project / "src" / "k.cu") is None
    # the first pyproject.toml ends the search too, even without a [tool.hipify-py] table
    (project / "src" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (project / ".hipify-py.yaml").write_text("ignore: [ALL]\n")
    assert find_config_file(project / "src" / "k.cu") is None
    (project / "src" / "pyproject.toml").unlink()
    assert find_config_file(project / "src" / "k.cu") == project.resolve() / ".hipify-py.yaml"


def test_world_writable_directory_ends_the_config_search(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "work" / "src").mkdir(parents=True)
    shared.chmod(0o1777)
    (shared / ".hipify-py.yaml").write_text("ignore: [ALL]\n")
    assert find_config_file(shared / "work" / "src") is None


def test_mapping_hip_value_must_be_an_identifier(project: Path) -> None:
    (project / ".hipify-py.yaml").write_text(
        "mappings:\n- {cuda: cudaDeviceSynchronize, hip: 'system(\"id\")', "
        "kind: function, status: supported}\n"
    )
    proc = cli("convert", str(project / "src"))
    assert "is not a C/C++ identifier" in one_line(proc)
    assert not (project / "src-hip").exists()
    (project / ".hipify-py.yaml").unlink()
    rules = project / "rules.yaml"
    rules.write_text(
        "family: user\nentries:\n"
        "- {cuda: cuda_runtime.h, hip: '../../etc/passwd', kind: header, status: supported}\n"
    )
    proc = cli("convert", str(project / "src"), "--mapping", str(rules))
    assert "is not a header path" in one_line(proc)


def test_inline_rules_reach_workers_without_a_temp_file(project: Path, tmp_path: Path) -> None:
    for n in range(6):
        (project / "src" / f"k{n}.cu").write_text(KERNEL.replace("cudaDeviceSynchronize", "cudaX"))
    (project / ".hipify-py.yaml").write_text(
        "mappings:\n- {cuda: cudaX, hip: hipX, kind: function, status: supported}\n"
    )
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache), "TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    proc = cli("convert", str(project / "src"), "-j", "2", "-q", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "hipX()" in (project / "src-hip" / "k5.hip").read_text()
    assert not list(cache.rglob("*user-rules*"))
    assert not list((tmp_path / "tmp").iterdir())
    assert not Path("/tmp/hipify-py-user-rules").exists() or not any(
        p.stat().st_mtime > time.time() - 60 for p in Path("/tmp/hipify-py-user-rules").iterdir()
    )


def test_fifo_or_device_as_mapping_is_an_error_not_a_hang(project: Path) -> None:
    fifo = project / "rules.fifo"
    os.mkfifo(fifo)
    for mapping in (fifo, Path("/dev/urandom")):
        started = time.monotonic()
        proc = cli("convert", str(project / "src"), "--mapping", str(mapping))
        assert "not a regular file" in one_line(proc)
        assert time.monotonic() - started < 30


def test_symlink_loop_in_the_tree_is_no_traceback(project: Path) -> None:
    src = project / "src"
    (src / "a.cu").symlink_to("b.cu")
    (src / "b.cu").symlink_to("a.cu")
    (src / "self").symlink_to("self")
    proc = cli("convert", str(src), "-q")
    assert proc.returncode == 0, proc.stderr
    assert (project / "src-hip" / "k.hip").is_file()
    for args in (["check", str(src)], ["verify", str(project / "src-hip")]):
        proc = cli(*args)
        assert "Traceback" not in proc.stderr, proc.stderr


def test_file_swapped_for_an_outside_link_is_not_read(project: Path, tmp_path: Path) -> None:
    from hipify_py.discover import walk
    from hipify_py.runner import process

    secret = tmp_path / "secret.cu"
    secret.write_text("__global__ void secret_kernel() {}\n")
    [cand] = [c for c in walk([project / "src"]) if c.path.name == "k.cu"]
    cand.path.unlink()
    cand.path.symlink_to(secret)  # swapped after it was listed
    outcome = process(cand, ctx())
    assert outcome.status == "failed" and "outside" in outcome.message
    assert outcome.result is None


def test_read_regular_reads_up_to_its_limit_and_refuses_a_byte_more(tmp_path: Path):
    """Files are read by size (no buffer of the whole limit): every byte up to the limit comes
    back, one more is refused, and a file whose size the kernel does not know (``/proc``)
    is still read to its end."""
    from hipify_py.untrusted import TooLarge, read_regular

    for size in (0, 1, 99, 100):
        path = tmp_path / f"f{size}"
        data = os.urandom(size)
        path.write_bytes(data)
        assert read_regular(path, 100) == data
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(TooLarge):
        read_regular(tmp_path / "big", 100)
    status = Path("/proc/self/status")
    if status.exists():  # st_size 0, content all the same
        assert os.stat(status).st_size == 0
        assert read_regular(status, 1 << 20).startswith(b"Name:")
        with pytest.raises(TooLarge):
            read_regular(status, 10)


@pytest.mark.parametrize(
    ("hip", "kind", "problem"),
    [
        ("__asm__", "function", "keyword '__asm__'"),
        ("delete", "function", "keyword 'delete'"),
        ("std::system", "function", "qualified name"),
        ("::std::system", "type", "qualified name"),
        ("hip::new", "type", "keyword 'new'"),
        ("hip::Stream", "macro", "qualified name"),
        ("_Pragma", "function", "keyword '_Pragma'"),
        ("__extension__", "function", "keyword '__extension__'"),
        ("hip::__typeof__", "type", "keyword '__typeof__'"),
    ],
)
def test_mapping_values_are_names_not_code(project: Path, hip: str, kind: str, problem: str):
    (project / ".hipify-py.yaml").write_text(
        f"mappings:\n- {{cuda: cudaDeviceSynchronize, hip: '{hip}', kind: {kind}, "
        "status: supported}\n"
    )
    proc = cli("convert", str(project / "src"))
    assert problem in one_line(proc)
    assert not (project / "src-hip").exists()


def test_a_qualified_hip_type_is_still_accepted(project: Path) -> None:
    (project / ".hipify-py.yaml").write_text(
        "mappings:\n- {cuda: cudaX, hip: 'hipcub::X', kind: type, status: supported}\n"
    )
    assert cli("convert", str(project / "src"), "-q").returncode == 0


@pytest.mark.parametrize("target", ["/etc/passwd", "/proc/self/environ", "../outside.yaml"])
def test_config_mapping_files_stay_inside_the_project(project: Path, target: str) -> None:
    (project.parent / "outside.yaml").write_text("family: user\nentries: []\n")
    (project / ".hipify-py.yaml").write_text(f"mappings: ['{target}']\n")
    proc = cli("convert", str(project / "src"))
    assert "is outside the project folder" in one_line(proc)
    assert not (project / "src-hip").exists()
