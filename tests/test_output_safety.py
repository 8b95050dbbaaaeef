"""Writers write regular files only and never leave the output root (issue 13, item 1), and
``--in-place`` keeps whole, verified backups (item 9)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hipify_py.files import BACKUP_SUFFIX, WriteError, backup_original, write_file
from hipify_py.output.manifest import MANIFEST_NAME
from test_convert_cli import KERNEL, cli


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "k.cu"
    path.write_text(KERNEL)
    return path


def _one_line_error(proc, code: int = 1) -> str:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) >= 1
    return proc.stderr


def test_output_onto_a_fifo_writes_through_to_its_reader(kernel: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as fh:
            received.append(fh.read())

    reader = threading.Thread(target=read)
    reader.start()
    proc = cli("convert", str(kernel), "-o", str(fifo), "-q")
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still a FIFO, not replaced by a file
    assert b"hipLaunchKernelGGL(add" in received[0]


def test_output_onto_a_fifo_nobody_reads_is_an_error_not_a_hang(
    kernel: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = cli("convert", str(kernel), "-o", str(fifo), "-q")
    assert "no process is reading the FIFO" in _one_line_error(proc)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def _char_device(tmp_path: Path) -> Path:
    """A private copy of /dev/null (as root); otherwise /dev/null itself, which a non-root
    user cannot replace anyway."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        return node
    except PermissionError:
        return Path("/dev/null")


def test_output_onto_a_character_device_leaves_it_a_device(kernel: Path, tmp_path: Path) -> None:
    device = _char_device(tmp_path)
    proc = cli("convert", str(kernel), "-o", str(device), "-q")
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert not list(tmp_path.glob(".null.*"))  # no temporary file left behind


def test_output_onto_a_symlink_writes_its_target_and_keeps_the_link(
    kernel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "real.hip"
    target.write_text("old\n")
    link = tmp_path / "link.hip"
    link.symlink_to(target)
    proc = cli("convert", str(kernel), "-o", str(link), "-q")
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "hipLaunchKernelGGL(add" in target.read_text()


def test_tree_never_follows_a_symlink_out_of_the_output_root(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "k.cu").write_text(KERNEL)
    (src / "a.cu").write_text(KERNEL)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "a.hip"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.hip").symlink_to(victim)  # a file link out of the tree
    (out / "sub").symlink_to(outside, target_is_directory=True)  # a directory link out
    proc = cli("convert", str(src), "--out-dir", str(out), "-q")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert victim.read_text() == "precious\n"
    assert not (outside / "k.hip").exists()
    assert (out / "a.hip").is_symlink()


def test_default_output_dir_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    (src / "k.hip").write_text("hand-written\n")
    (tmp_path / "src-hip").symlink_to(src, target_is_directory=True)
    proc = cli("convert", str(src))
    assert "is a symlink" in _one_line_error(proc, 2)
    assert len(proc.stderr.strip().splitlines()) == 1
    assert (src / "k.hip").read_text() == "hand-written\n"


def test_reports_and_diffs_are_written_through_fifos_too(kernel: Path, tmp_path: Path) -> None:
    device = _char_device(tmp_path)
    proc = cli("convert", str(kernel), "--dry-run", "--diff-file", str(device))
    assert proc.returncode == 0, proc.stderr
    proc = cli("convert", str(kernel), "--json", str(device), "-q")
    assert proc.returncode == 0, proc.stderr
    proc = cli("check", str(kernel), "-o", str(device))
    assert proc.returncode in (0, 1), proc.stderr
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_write_file_replaces_atomically_and_keeps_modes(tmp_path: Path) -> None:
    path = tmp_path / "f"
    write_file(path, b"one", mode=0o751, root=tmp_path)
    assert path.read_bytes() == b"one" and stat.S_IMODE(path.stat().st_mode) == 0o751
    write_file(path, b"two", root=tmp_path)
    assert path.read_bytes() == b"two" and stat.S_IMODE(path.stat().st_mode) == 0o751
    with pytest.raises(WriteError, match="outside"):
        write_file(tmp_path / ".." / "escape", b"x", root=tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_an_output_root_swapped_for_a_symlink_during_a_run_is_not_followed(
    tmp_path: Path,
) -> None:
    root, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    root.mkdir()
    write_file(root / "sub" / "one.hip", b"1", root=root)
    root.rename(tmp_path / "moved")
    (elsewhere / "sub").mkdir(parents=True)
    root.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(WriteError, match="outside"):
        write_file(root / "sub" / "two.hip", b"2", root=root)
    assert list(elsewhere.rglob("*.hip")) == []
    assert (tmp_path / "moved" / "sub" / "one.hip").read_bytes() == b"1"


def test_a_new_file_takes_the_umask_and_a_stale_temporary_name_is_stepped_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The temporary file is created as the output itself would be (0o666 less the umask), not
    0o600; a name left by a killed run with the same process id is not opened, nor removed."""
    from hipify_py import files

    monkeypatch.setattr(files, "_temp_serial", iter(range(3)))
    stale = tmp_path / f".f.{os.getpid()}-0.tmp"
    stale.write_bytes(b"left by a killed run")
    old = os.umask(0o027)
    try:
        write_file(tmp_path / "f", b"new", root=tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f").stat().st_mode) == 0o640
    assert stale.read_bytes() == b"left by a killed run"
    assert sorted(p.name for p in tmp_path.iterdir()) == [stale.name, "f"]


# ----------------------------------------------------------------------------- --in-place


def test_backup_is_written_once_and_a_truncated_one_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    original = KERNEL.encode()
    path.write_bytes(original)
    saved = backup_original(path, original)
    assert saved.name == "k.cu" + BACKUP_SUFFIX and saved.read_bytes() == original
    # a later run (the file changed since) keeps the first original
    backup_original(path, b"changed")
    assert saved.read_bytes() == original
    # a truncated backup (an older version killed mid-copy, a full disk) is not trusted
    saved.write_bytes(original[:10])
    backup_original(path, original)
    assert saved.read_bytes() == original


def test_backup_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(KERNEL)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "passwd"
    victim.write_text("root:x:0:0\n")
    (tmp_path / f"k.cu{BACKUP_SUFFIX}").symlink_to(victim)
    with pytest.raises(WriteError):
        backup_original(path, KERNEL.encode())
    assert victim.read_text() == "root:x:0:0\n"


def test_in_place_with_a_truncated_backup_keeps_the_original(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    k = src / "k.cu"
    k.write_text(KERNEL)
    (src / f"k.cu{BACKUP_SUFFIX}").write_text(KERNEL[:20])  # left by a killed run
    proc = cli("convert", str(src), "--in-place", "-q")
    assert proc.returncode == 0, proc.stderr
    assert "hipLaunchKernelGGL" in k.read_text()
    assert (src / f"k.cu{BACKUP_SUFFIX}").read_text() == KERNEL


def test_manifest_written_in_the_output_tree(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    assert cli("convert", str(src), "-q").returncode == 0
    assert (tmp_path / "src-hip" / MANIFEST_NAME).is_file()


def test_in_place_does_not_rewrite_a_file_changed_while_it_was_converted(tmp_path: Path) -> None:
    from _convert import ctx
    from hipify_py.output import Destination, WriteBack, plan
    from hipify_py.runner import process

    k = tmp_path / "k.cu"
    k.write_text(KERNEL)
    writer = plan([k], Destination(WriteBack.IN_PLACE, keep_names=True), ctx().options)
    [cand] = writer.items
    outcome = process(cand, ctx())
    assert outcome.status == "converted"
    k.write_text(KERNEL + "// saved by the editor meanwhile\n")
    with pytest.raises(WriteError, match="changed while it was converted"):
        writer.emit(outcome)
    assert k.read_text().endswith("meanwhile\n")
    assert not (tmp_path / f"k.cu{BACKUP_SUFFIX}").exists()
    outcome = process(cand, ctx())
    assert writer.emit(outcome) == k and "hipLaunchKernelGGL" in k.read_text()


CUDA_CPP = "#include <cuda_runtime.h>\nint main() { return cudaFree(0); }\n"


@pytest.mark.parametrize(
    ("inputs", "out_dir", "extra"),
    [
        (["src/b.cpp"], "src", []),  # a .cpp keeps its name: its output is the input
        (["src/a.cu"], "src", ["--keep-names"]),
        (["x", "y"], ".", []),  # several inputs keep their folder names under the output
        (["src/b.cpp", "src/a.cu"], "x/../src", []),  # the same directory, spelled otherwise
    ],
)
def test_an_output_tree_holding_the_inputs_never_replaces_them(
    tmp_path: Path, inputs: list[str], out_dir: str, extra: list[str]
) -> None:
    for folder in ("src", "x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.cu").write_text(KERNEL)
        (tmp_path / folder / "b.cpp").write_text(CUDA_CPP)
    args = [str(tmp_path / i) for i in inputs]
    proc = cli("convert", *args, "--out-dir", str(tmp_path / out_dir), *extra, "-q")
    assert "would replace the input" in _one_line_error(proc, 2)
    for folder in ("src", "x", "y"):  # every source byte for byte, and nothing written
        assert (tmp_path / folder / "a.cu").read_text() == KERNEL
        assert (tmp_path / folder / "b.cpp").read_text() == CUDA_CPP
        assert sorted(p.name for p in (tmp_path / folder).iterdir()) == ["a.cu", "b.cpp"]


def test_a_first_run_into_a_directory_never_replaces_files_it_did_not_write(
    tmp_path: Path,
) -> None:
    """No manifest yet: a file there that differs from what convert would write is the user's."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    (src / "README").write_text("new readme\n")
    out.mkdir()
    (out / "k.hip").write_text("// my own port\n")
    (out / "README").write_text("my notes\n")
    proc = cli("convert", str(src), "--out-dir", str(out), "-q")
    assert proc.returncode == 1 and "--force overwrites it" in proc.stderr
    assert (out / "k.hip").read_text() == "// my own port\n"
    assert (out / "README").read_text() == "my notes\n"
    proc = cli("convert", str(src), "--out-dir", str(out), "-q", "--force")
    assert proc.returncode == 0, proc.stderr
    assert "hipLaunchKernelGGL" in (out / "k.hip").read_text()
    assert (out / "README").read_text() == "new readme\n"


def test_a_first_run_keeps_files_that_already_hold_the_output(tmp_path: Path) -> None:
    """The same bytes are not a conflict: a tree converted before, its manifest lost."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    assert cli("convert", str(src), "--out-dir", str(tmp_path / "out"), "-q").returncode == 0
    (tmp_path / "out" / MANIFEST_NAME).unlink()
    proc = cli("convert", str(src), "--out-dir", str(tmp_path / "out"), "-q")
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------ a file system that refuses: one line, never a traceback


@pytest.fixture
def small_fs(tmp_path: Path):
    """A 64 KiB tmpfs (root can mount one; CI runs as root): a disk that fills up, then is made
    read-only, for real ENOSPC and EROFS errors."""
    from conftest import missing

    mount = tmp_path / "fs"
    mount.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True
    )
    if proc.returncode != 0:
        missing(f"cannot mount a tmpfs: {proc.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _big_tree(src: Path, files: int = 30) -> None:
    src.mkdir(parents=True)
    for n in range(files):  # ~3 KB each: 30 of them do not fit in 64 KiB with the manifest
        (src / f"k{n}.cu").write_text(KERNEL.replace("add", f"add{n}") + "//" + "x" * 3000 + "\n")


def _refused(proc) -> str:
    assert proc.returncode != 0, proc.stderr
    assert "Traceback" not in proc.stderr and ".tmp" not in proc.stderr, proc.stderr
    return proc.stderr


def test_a_full_disk_is_one_line_per_file_and_for_the_manifest(tmp_path: Path, small_fs: Path):
    _big_tree(tmp_path / "src")
    err = _refused(cli("convert", str(tmp_path / "src"), "--out-dir", str(small_fs / "out"), "-q"))
    assert "No space left on device" in err
    assert f"cannot write {small_fs / 'out' / MANIFEST_NAME}" in err
    assert not list(small_fs.rglob("*.tmp"))  # no temporary file left behind


def test_a_read_only_output_and_a_read_only_default_parent(tmp_path: Path, small_fs: Path):
    _big_tree(small_fs / "src", files=2)
    subprocess.run(["mount", "-o", "remount,ro", str(small_fs)], check=True)
    err = _refused(cli("convert", str(small_fs / "src"), "-q"))  # default: a sibling src-hip
    assert "cannot create the output directory" in err and "Read-only file system" in err
    err = _refused(cli("convert", str(small_fs / "src"), "--out-dir", str(small_fs), "-q"))
    assert "Read-only file system" in err


def test_an_output_directory_below_a_file_and_an_empty_output_name(tmp_path: Path) -> None:
    _big_tree(tmp_path / "src", files=1)
    (tmp_path / "file").write_text("a file\n")
    proc = cli("convert", str(tmp_path / "src"), "--out-dir", str(tmp_path / "file" / "sub"))
    assert "Not a directory" in _one_line_error(proc, 2)
    proc = cli("convert", str(tmp_path / "src" / "k0.cu"), "-o", "")
    assert "an empty path" in _one_line_error(proc, 2)
    # a directory named as the file to write is a usage error before the run, not a failed
    # write after it (exit 1)
    for option in ("-o", "--json", "--diff-file"):
        extra = ["--dry-run"] if option == "--diff-file" else []
        proc = cli("convert", str(tmp_path / "src" / "k0.cu"), option, str(tmp_path), *extra)
        assert "is a directory" in _one_line_error(proc, 2), option


def test_ctrl_c_during_a_write_lands_once_the_file_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal_sigint: None
) -> None:
    """The interrupt is held while a temporary file exists beside the one it replaces: it
    left an empty `.k.cu.PID-N.tmp` in the source tree of an --in-place run."""
    from hipify_py import files

    target = tmp_path / "k.cu"
    target.write_bytes(b"old")
    write_all = files._write_all

    def interrupted(fd: int, data: bytes) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        write_all(fd, data)

    monkeypatch.setattr(files, "_write_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_file(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]


def test_a_file_that_vanishes_during_the_run_is_reported_once(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text(KERNEL)
    (src / "b.cu").write_text(KERNEL)
    vanish = (  # b.cu is found, then deleted before it is read
        "import os, sys\nimport hipify_py.output as output\nfrom hipify_py.cli import main\n"
        "discover = output.discover\n"
        "def vanishing(*a, **k):\n    found = discover(*a, **k)\n"
        f"    os.unlink({str(src / 'b.cu')!r})\n    return found\n"
        "output.discover = vanishing\nsys.argv = ['hipify-py', *sys.argv[1:]]\nmain()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", vanish, "convert", str(src), "-q"], capture_output=True, text=True
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.count("b.cu") == 1, proc.stderr
    assert (tmp_path / "src-hip" / "a.hip").is_file()
