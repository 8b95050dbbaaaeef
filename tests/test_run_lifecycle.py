"""A long run streams its output, stops cleanly on Ctrl-C (exit 130) and leaves no worker behind,
even when its parent is killed (issue 13, items 7 and 9); usage errors are one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hipify_py.files import sha256
from hipify_py.output.manifest import MANIFEST_NAME
from test_convert_cli import KERNEL, cli


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has exited


def _tree(root: Path, count: int, functions: int = 40) -> Path:
    src = root / "src"
    src.mkdir()
    body = KERNEL + "".join(f"void f{n}(float* p) {{ cudaFree(p); }}\n" for n in range(functions))
    for n in range(count):
        (src / f"k{n:04d}.cu").write_text(body)
    return src


# convert, with Ctrl-C sent by the process to itself right after the writer has emitted its
# fifth file: the interrupt lands at a known point of the run, on any machine load
_CTRL_C_AFTER_FIVE = """
import os, signal, sys
# Ctrl-C as in a terminal, also when the suite runs as a background job (SIGINT ignored)
signal.signal(signal.SIGINT, signal.default_int_handler)
import hipify_py.output as output
from hipify_py.cli import main
emit = output.Writer.emit
calls = []
def emit_then_interrupt(self, outcome):
    written = emit(self, outcome)
    calls.append(1)
    if len(calls) == 5:
        os.kill(os.getpid(), signal.SIGINT)
    return written
output.Writer.emit = emit_then_interrupt
sys.argv = ["hipify-py", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("extra", [[], ["--in-place"]])
def test_ctrl_c_exits_130_and_leaves_a_consistent_tree(tmp_path: Path, extra: list[str]) -> None:
    src = _tree(tmp_path, 60)
    before = {p.name: p.read_bytes() for p in src.iterdir()}
    out = tmp_path / "src-hip"
    proc = subprocess.run(
        [sys.executable, "-c", _CTRL_C_AFTER_FIVE, "convert", str(src), "-j", "2", "-q", *extra],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
    tree = src if extra else out
    assert not [p.name for p in tree.rglob("*.tmp")]  # no temporary file left
    if extra:  # in place: each source is its original or its whole conversion, with a backup
        converted = [p for p in src.glob("*.cu") if p.read_bytes() != before[p.name]]
        assert 5 <= len(converted) < 60
        for path in converted:
            backup = path.with_name(path.name + ".prehip")
            assert backup.read_bytes() == before[path.name]
            assert b"hipLaunchKernelGGL" in path.read_bytes()
        return
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    written = sorted(p.name for p in out.iterdir() if p.name != MANIFEST_NAME)
    assert 5 <= len(written) < 60
    assert all(name.endswith(".hip") for name in written)
    for rel, entry in manifest["files"].items():
        assert sha256((out / rel).read_bytes()) == entry["sha256"]
    # the re-run picks up where it stopped: nothing is refused as a hand edit
    again = cli("convert", str(src), "-q")
    assert again.returncode == 0, again.stderr
    assert len(list(out.glob("*.hip"))) == 60


def test_a_swallowed_ctrl_c_still_stops_the_run(tmp_path: Path) -> None:
    """A KeyboardInterrupt lost where Python cannot raise it: the request is remembered, the
    run stops at the next file and the command exits 130 (it went on and exited 0)."""
    src = _tree(tmp_path, 30)
    swallowed = _CTRL_C_AFTER_FIVE.replace(
        "os.kill(os.getpid(), signal.SIGINT)",
        "import hipify_py.interrupts as i\n        try:\n            i._on_interrupt(2, None)\n"
        "        except KeyboardInterrupt:\n            pass",
    )
    proc = subprocess.run(
        [sys.executable, "-c", swallowed, "convert", str(src), "-j", "2", "-q"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 130, proc.stderr
    assert len(list((tmp_path / "src-hip").glob("*.hip"))) < 30


def test_workers_die_with_their_parent(tmp_path: Path) -> None:
    src = _tree(tmp_path, 40)
    script = textwrap.dedent(
        f"""
        import multiprocessing, sys, time
        from pathlib import Path
        from hipify_py.context import Context, Options
        from hipify_py.discover import walk
        from hipify_py.mappings import load_index
        from hipify_py.runner import run

        ctx = Context(Options(), load_index())
        outcomes = run(list(walk([Path({str(src)!r})])), ctx, jobs=2)
        next(outcomes)
        print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
        time.sleep(120)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert pids, "the pool started workers"
    proc.kill()  # kill -9: no cleanup code runs in the parent
    proc.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"orphaned workers: {left}"


@pytest.mark.parametrize(
    "args",
    [
        ["convert"],
        ["convert", ".", "--bogus"],
        ["check", ".", "--format", "xml"],
        ["convert", "missing-dir"],
        ["check", ".", "--select", "XY9"],
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, args: list[str]) -> None:
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hipify-py: error: "), proc.stderr


def test_runner_names_the_file_in_progress_when_no_file_finishes(tmp_path, monkeypatch) -> None:
    from _convert import ctx
    from hipify_py import runner
    from hipify_py.discover import walk

    monkeypatch.setattr(runner, "SLOW_SECONDS", 0.001)
    src = _tree(tmp_path, 8)
    slow = []
    outcomes = list(runner.run(list(walk([src])), ctx(), jobs=2, on_slow=slow.append))
    assert sorted(o.candidate.path.name for o in outcomes) == [f"k{n:04d}.cu" for n in range(8)]
    assert slow and all(c.path.parent == src for c in slow)


def test_progress_bar_shows_the_slow_file_as_written() -> None:
    import io

    from rich.console import Console

    from hipify_py.cli.progress import progress
    from hipify_py.discover import Candidate

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100, color_system=None)
    with progress(console, 3, True) as bar:
        bar.advance(Candidate(Path("a/x.cu"), Path("x.cu"), Path("a")))
        bar.slow(Candidate(Path("a/k[1].cu"), Path("k[1].cu"), Path("a")))
        assert bar.progress is not None
        bar.progress.refresh()
    assert "converting k[1].cu (slow)" in buf.getvalue() and "1/3" in buf.getvalue()


def test_report_is_the_same_for_any_number_of_jobs(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for n in range(12):
        lines = ["// pad"] * n + ["__global__ void k() { int lane = threadIdx.x & 31; }"]
        (src / f"k{n:02d}.cu").write_text("\n".join(lines) + "\n")
        (src / f"bin{n:02d}.cu").write_bytes(b"\x7fELF\0\0")
    runs = [cli("convert", str(src), "--dry-run", "-j", jobs) for jobs in ("1", "2")]
    assert all(r.returncode == 1 for r in runs)  # the binary files fail
    assert runs[0].stderr == runs[1].stderr and runs[0].stdout == runs[1].stdout
    lines = runs[0].stderr.splitlines()
    failures = [line for line in lines if line.startswith("not converted")]
    assert failures == sorted(failures) and len(failures) == 12


def test_a_worker_that_dies_costs_its_file_only(tmp_path, monkeypatch) -> None:
    """A worker killed by a signal (a crash in native code) fails the file it was converting;
    the files in flight with it are converted again, and the run goes on."""
    from _convert import ctx
    from hipify_py import runner
    from hipify_py.discover import walk

    real = runner.process

    def crashing(candidate, context, mode="convert", known=None):
        if candidate.path.name == "k0003.cu":
            os.kill(os.getpid(), signal.SIGKILL)
        return real(candidate, context, mode, known)

    monkeypatch.setattr(runner, "process", crashing)  # forked workers inherit the patch
    src = _tree(tmp_path, 12)
    outcomes = {o.candidate.path.name: o for o in runner.run(list(walk([src])), ctx(), jobs=2)}
    assert sorted(outcomes) == [f"k{n:04d}.cu" for n in range(12)]
    crashed = outcomes.pop("k0003.cu")
    assert crashed.status == "failed" and "worker converting it died" in crashed.message
    assert {o.status for o in outcomes.values()} == {"converted"}


def test_stopping_the_pool_closes_its_result_pipe(tmp_path: Path) -> None:
    """A worker killed while sending a result leaves half a message in the result pipe; the
    pool's own copy of the pipe's write end must be closed so that the executor's reader sees
    end-of-file instead of waiting at interpreter exit (Ctrl-C hung 1 run in 15 when the copy
    was looked up after ``shutdown`` had dropped it)."""
    from hipify_py.context import Context, Options
    from hipify_py.discover import walk
    from hipify_py.mappings import load_index
    from hipify_py.runner import _Pool, worker_args

    ctx = Context(Options(), load_index())
    (cand,) = walk([_tree(tmp_path, 1)])
    pool = _Pool(1, worker_args(ctx, ()))
    assert pool.submit(cand, "convert", None).result().status == "converted"
    writer = pool.executor._result_queue._writer  # type: ignore[attr-defined]
    assert not writer.closed
    pool.kill()
    assert writer.closed
