"""Mutation campaign: push many mutated CUDA sources through convert and check, each in a worker
process that may die, and count what went wrong.

Usage: python benchmarks/fuzz_campaign.py [--inputs 100000] [--start 0] [--jobs 2]
                                          [--save DIR] [--slow 10] [--adversarial 10]
                                          [--max-bytes 1048576] [--worker-memory 4096]
                                          [--log FILE]
(SIGTERM or Ctrl-C: finish the inputs in flight and print the summary so far.)

Input number N is ``tests/_mutations.py:mutate(N)`` (a seed from tests/ and examples/ plus one to
five mutations), or, for every ``--adversarial``-th number, ``adversarial.py:generate(N)`` (one
of its generators, up to ``--max-bytes``: macro bombs, unclosed ``<<<``, backslash-newline
runs, one-line files, spaced launches, dense declarations, ``;;;;``, long identifiers, many
launches, deep nesting, many ``#if``), so any failure is reproduced from its number (on the
same commit: the seeds are the repository's tests).  Odd numbers run with ``--skip-inactive``
(which parses every file with libclang), even ones without.  ``--start``/``--inputs`` shard a
campaign over machines; ``--jobs`` workers share one machine.  For each input a worker runs the
file through ``runner.process`` as ``convert`` and as ``check`` would, then converts the output
again.  Counted per input: a traceback (any exception, MemoryError past ``--worker-memory``
included), a worker death (the process was killed, e.g. by SIGSEGV, or hung past 20x the slow
limit in wall time), an edit conflict, a rule error (a rule pass that raised), a slow input
(its convert or its check took over ``--slow`` CPU seconds), a non-idempotent conversion, a
silent analysis failure (libclang was stopped or died on the file and the conversion or the
check does not say "not analysed"; a run that says so, also for a file too dense for the token
pipeline or too large to parse, is counted apart, as reported) and an input
whose peak memory grew by more than 20 times its size (at least 64 MiB allowed: the
interpreter's own heap moves that much).  ``--log`` writes one line per input: number, kind
(mutations or generator), bytes, CPU seconds (the slower of convert and check), peak memory
growth (MiB; this worker's VmHWM is reset before each input), problems, parse verdict.  Failing
inputs are written to ``--save`` with their number and mutations in the name.  The last line
printed is ``SUMMARY inputs=... <problem>=<count> ...``, every counter on one line (exit status
1 if any problem was counted).  This is the long run behind ``tests/test_fuzz.py`` (which CI
runs with a small fixed budget).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adversarial import generate  # noqa: E402

import hipify_py.frontend.unit as unit_module  # noqa: E402
from _mutations import mutate  # noqa: E402
from hipify_py.context import Context, Options  # noqa: E402
from hipify_py.discover import Candidate  # noqa: E402
from hipify_py.mappings import load_index  # noqa: E402
from hipify_py.pipeline import convert_text  # noqa: E402
from hipify_py.result import RunMode  # noqa: E402
from hipify_py.runner import process  # noqa: E402

PROBLEMS = (
    "traceback",
    "death",
    "conflict",
    "rule_error",
    "slow",
    "not_idempotent",
    "silent",
    "over_memory",
)
MEMORY_FLOOR = 64 << 20
# wall time, in --slow units, after which a worker counts as hung: three runs of up to --slow
# CPU seconds each, with room for a loaded machine
HUNG = 20


def make_input(number: int, adversarial: int, max_bytes: int) -> tuple[bytes, str]:
    """Input ``number``: adversarial every ``adversarial``-th number, else a mutation."""
    if adversarial and number % adversarial == 0:
        return generate(number, max_bytes)
    return mutate(number)


def examine(
    data: bytes, work: Path, ctx: Context, stopped: list[str], longest: list[float]
) -> list[str]:
    """The problems one input shows (empty when it went through cleanly); ``stopped`` collects
    why libclang's parse child failed on it, if it did, and ``longest[0]`` the CPU seconds of
    the slower of its convert and check."""
    path = work / "m.cu"
    path.write_bytes(data)
    cand = Candidate(path, Path("m.cu"), work)
    found: list[str] = []
    for mode in (RunMode.CONVERT, RunMode.CHECK):
        stopped.clear()
        t0 = _cpu_seconds()
        out = process(cand, ctx, mode)
        longest[0] = max(longest[0], _cpu_seconds() - t0)
        result = out.result
        if out.status == "failed" and "conflict" in out.message:
            found.append("conflict")
        if result is not None and any("internal error" in p for p in result.parse_problems):
            found.append("rule_error")
        errors = [e for e in getattr(result, "rule_errors", ()) if "not analysed" not in e]
        if errors:
            found.append("rule_error")
        told = [*result.parse_problems, *result.rule_errors] if result is not None else []
        said = any("not analysed" in p for p in told)  # a parse stopped, too dense, too big
        if said or (stopped and result is not None):
            found.append("not_analysed" if said else "silent")
        if mode is RunMode.CONVERT and result is not None and result.changed and not result.error:
            again = convert_text(result.text, str(path), ctx)
            if again.text != result.text:
                found.append("not_idempotent")
    return sorted(set(found))


def _watch_parses(stopped: list[str]) -> None:
    """Record each verdict of the parse child that is not 'lived'."""
    real = unit_module.crash_of

    def watched(*args, **kwargs):
        verdict = real(*args, **kwargs)
        if verdict is not None:
            stopped.append(verdict)
        return verdict

    unit_module.crash_of = watched  # type: ignore[assignment]


def _peak_reset() -> int:
    """Reset this process's peak RSS (Linux clear_refs 5); its RSS now, in bytes."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    return _status("VmRSS")


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def _worker(conn: Connection, adversarial: int, max_bytes: int, memory: int) -> None:
    if memory:  # a runaway input raises MemoryError (a traceback) instead of starving the host
        # the soft limit only: the parse child sets its own cap, which may be higher
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        resource.setrlimit(resource.RLIMIT_AS, (memory << 20, hard))
    index = load_index()
    contexts = [Context(Options(), index), Context(Options(skip_inactive=True), index)]
    stopped: list[str] = []
    _watch_parses(stopped)
    with tempfile.TemporaryDirectory(prefix="hipify-fuzz-") as tmp:
        work = Path(tmp)
        for ctx in contexts:  # imports and tables: not the first input's memory growth
            examine(mutate(0)[0], work, ctx, stopped, [0.0])
        parent = os.getppid()
        while True:
            while not conn.poll(2):
                if os.getppid() != parent:  # the campaign was killed: do not live on
                    return
            number = conn.recv()
            if number is None:
                return
            data, how = make_input(number, adversarial, max_bytes)
            stopped.clear()
            base = _peak_reset()
            longest = [0.0]
            try:
                found = examine(data, work, contexts[number % 2], stopped, longest)
                detail = ""
            except Exception:
                found, detail = ["traceback"], traceback.format_exc()
            grew = max(0, _status("VmHWM") - base)
            if grew > max(20 * len(data), MEMORY_FLOOR):
                found.append("over_memory")
            info = (len(data), grew, "; ".join(stopped), how)
            conn.send((number, found, longest[0], detail, info))


def _cpu_seconds() -> float:
    """CPU time of this worker and its finished children (the forked parse probes): on a shared
    machine wall time measures the neighbours, not the input."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class Worker:
    def __init__(self, adversarial: int, max_bytes: int, memory: int) -> None:
        self.setup = (adversarial, max_bytes, memory)
        self.conn, child = mp.Pipe()
        self.proc = mp.Process(target=_worker, args=(child, *self.setup), daemon=True)
        self.proc.start()
        child.close()
        self.number: int | None = None
        self.since = 0.0

    def give(self, number: int) -> None:
        self.number, self.since = number, time.perf_counter()
        self.conn.send(number)

    def stop(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()


def main() -> int:
    args = _arguments()
    args.save.mkdir(parents=True, exist_ok=True)
    log = args.log.open("w") if args.log else None
    if log:
        print("number\tkind\tbytes\tcpu_s\tpeak_mib\tproblems\tparse", file=log, flush=True)
    tally = Tally(args, log)
    todo = Inputs(args.start, args.inputs)
    signal.signal(signal.SIGTERM, todo.stop)
    signal.signal(signal.SIGINT, todo.stop)
    setup = (args.adversarial, args.max_bytes, args.worker_memory)
    workers = [Worker(*setup) for _ in range(min(args.jobs, args.inputs))]
    for w in workers:
        todo.hand_to(w)
    while any(w.number is not None for w in workers):
        busy = [w for w in workers if w.number is not None]
        ready = set(wait([w.conn for w in busy] + [w.proc.sentinel for w in busy], timeout=1.0))
        for i, w in enumerate(workers):
            state = "idle" if w.number is None else _collect(w, ready, tally, args.slow)
            if state in ("idle", "busy"):
                continue
            if state == "dead":
                w.stop()
                workers[i] = w = Worker(*setup)
            w.number = None
            todo.hand_to(w)
    for w in workers:
        w.conn.send(None)
        w.proc.join(5)
        w.stop()
    return tally.summary()


class Inputs:
    """The input numbers still to hand out; after ``stop`` (SIGTERM, SIGINT) none: the inputs
    in flight finish, then the summary is printed."""

    def __init__(self, start: int, count: int) -> None:
        self.todo = iter(range(start, start + count))

    def stop(self, signum: int, frame: object) -> None:
        self.todo = iter(())

    def hand_to(self, worker: Worker) -> None:
        """Give ``worker`` the next input, if one is left."""
        number = next(self.todo, None)
        if number is not None:
            worker.give(number)


def _collect(w: Worker, ready: set, tally: Tally, slow: float) -> str:
    """Record what busy worker ``w`` has to say: ``"busy"`` (nothing yet), ``"done"`` (its
    input's result; it takes the next) or ``"dead"`` (it died or hung past ``HUNG`` times the
    slow limit: its input counts as a death and the worker is replaced)."""
    number = w.number
    if w.conn in ready or w.conn.poll():
        try:
            result = w.conn.recv()
        except EOFError:
            tally.record(number, ["death"], 0.0, "worker died")
            return "dead"
        tally.record(*result)
        return "done"
    wall = time.perf_counter() - w.since
    if w.proc.is_alive() and wall <= HUNG * slow:
        return "busy"
    died = f"exit code {w.proc.exitcode}" if not w.proc.is_alive() else "hung"
    tally.record(number, ["death"], 0.0, f"{died} after {wall:.0f} s wall")
    return "dead"


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=100_000, help="how many input numbers")
    ap.add_argument("--start", type=int, default=0, help="the first input number (a shard)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--slow", type=float, default=10.0, help="CPU s one convert or check may take")
    ap.add_argument("--save", type=Path, default=Path("fuzz-failures"))
    ap.add_argument("--adversarial", type=int, default=10, help="every N-th input (0: none)")
    ap.add_argument("--max-bytes", type=int, default=1 << 20, help="adversarial inputs' size")
    ap.add_argument("--worker-memory", type=int, default=4096, help="MiB per worker (0: any)")
    ap.add_argument("--log", type=Path, help="one line per input (tab-separated)")
    return ap.parse_args()


class Tally:
    """What the campaign found so far: counts, the slowest and heaviest inputs, the log."""

    def __init__(self, args: argparse.Namespace, log: TextIO | None) -> None:
        self.args, self.log = args, log
        self.counts: Counter = Counter()
        self.kinds: Counter = Counter()
        self.notes: Counter = Counter()
        self.done = 0
        self.slowest = (0.0, -1)
        self.heaviest: tuple[float, int, int, int] = (0.0, -1, 0, 0)
        self.t_start = time.perf_counter()

    def record(
        self, number: int, found: list[str], seconds: float, detail: str, info: tuple = ()
    ) -> None:
        size, grew, parse, how = info or (0, 0, "", "")
        args = self.args
        self.done += 1
        self.slowest = max(self.slowest, (seconds, number))
        # the share of its allowance (20x its size, at least MEMORY_FLOOR) it used
        self.heaviest = max(
            self.heaviest, (grew / max(20 * size, MEMORY_FLOOR), number, grew, size)
        )
        if seconds > args.slow:
            found = [*found, "slow"]
        if self.log:
            if not how:  # a death: the worker could not say
                how = make_input(number, args.adversarial, args.max_bytes)[1]
            fields = (number, how, size, f"{seconds:.3f}", f"{grew / 2**20:.1f}")
            print(*fields, ",".join(found), parse, sep="\t", file=self.log, flush=True)
        self.notes.update(p for p in found if p not in PROBLEMS)  # reported as it should be
        found = [p for p in found if p in PROBLEMS]
        self.counts.update(found)
        if found:
            data, how = make_input(number, args.adversarial, args.max_bytes)
            self.kinds.update(f"{p}:{how}" for p in found)
            name = f"{number}-{'-'.join(found)}-{how}.cu"
            (args.save / name).write_bytes(data)
            if detail:
                (args.save / f"{number}.txt").write_text(detail)
            print(f"input {number}: {', '.join(found)} ({how}, {len(data)} bytes)", flush=True)
        if self.done % 250 == 0:
            rate = self.done / (time.perf_counter() - self.t_start)
            print(f"{self.done} inputs, {rate:.1f}/s, {dict(self.counts)}", flush=True)

    def summary(self) -> int:
        """Print the result (the last line, ``SUMMARY ...``, holds every counter); 1 if any
        problem was found."""
        elapsed = time.perf_counter() - self.t_start
        print(f"\n{self.done} inputs in {elapsed:.0f} s", end="; ")
        print(f"slowest {self.slowest[0]:.2f} CPU s (input {self.slowest[1]})", end="; ")
        share, number, grew, size = self.heaviest
        print(
            f"heaviest input {number}: peak grew {grew / 2**20:.1f} MiB, "
            f"{grew / max(1, size):.1f}x its {size} bytes ({share:.0%} of what it may use)"
        )
        for problem in PROBLEMS:
            print(f"  {problem:15} {self.counts[problem]}")
        print(f"  reported 'not analysed' (not a problem): {self.notes['not_analysed']} runs")
        for kind, n in self.kinds.most_common(20):
            print(f"    {n:6} {kind}")
        a = self.args
        fields = [f"inputs={self.done}", f"start={a.start}", f"seconds={elapsed:.0f}"]
        fields += [f"{p}={self.counts[p]}" for p in PROBLEMS]
        fields += [f"not_analysed={self.notes['not_analysed']}"]
        fields += [f"slowest_cpu_s={self.slowest[0]:.2f}@{self.slowest[1]}"]
        fields += [f"heaviest_share={share:.2f}@{number}"]
        print("SUMMARY " + " ".join(fields), flush=True)
        return 1 if self.counts else 0


if __name__ == "__main__":
    sys.exit(main())
