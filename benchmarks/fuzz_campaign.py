"""Mutation campaign: push many mutated CUDA sources through convert and check, each in a worker
process that may die, and count what went wrong.

Usage: python benchmarks/fuzz_campaign.py [--inputs 100000] [--start 0] [--jobs 2]
                                          [--save DIR] [--slow 10]
(SIGTERM or Ctrl-C: finish the inputs in flight and print the summary so far.)

Input number N is ``tests/_mutations.py:mutate(N)`` (a seed from tests/ and examples/ plus one to
five mutations), so any failure is reproduced from its number.  For each input a worker runs the
file through ``runner.process`` as ``convert`` and as ``check`` would, then converts the output
again.  Counted per input: a traceback (any exception), a worker death (the process was killed,
e.g. by SIGSEGV, or hung past 6x the slow limit in wall time), an edit conflict, a rule error
(a rule pass that raised), a slow input (over ``--slow`` CPU seconds for convert + check +
reconvert) and a non-idempotent conversion.  Failing
inputs are written to ``--save`` with their number and mutations in the name.  This is the
long run behind ``tests/test_fuzz.py`` (which CI runs with a small fixed budget).
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
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _mutations import mutate  # noqa: E402
from hipify_py.context import Context, Options  # noqa: E402
from hipify_py.discover import Candidate  # noqa: E402
from hipify_py.mappings import load_index  # noqa: E402
from hipify_py.pipeline import convert_text  # noqa: E402
from hipify_py.result import RunMode  # noqa: E402
from hipify_py.runner import process  # noqa: E402

PROBLEMS = ("traceback", "death", "conflict", "rule_error", "slow", "not_idempotent")


def examine(data: bytes, work: Path, ctx: Context) -> list[str]:
    """The problems one input shows (empty when it went through cleanly)."""
    path = work / "m.cu"
    path.write_bytes(data)
    cand = Candidate(path, Path("m.cu"), work)
    found: list[str] = []
    for mode in (RunMode.CONVERT, RunMode.CHECK):
        out = process(cand, ctx, mode)
        result = out.result
        if out.status == "failed" and "conflict" in out.message:
            found.append("conflict")
        if result is not None and any("internal error" in p for p in result.parse_problems):
            found.append("rule_error")
        if result is not None and getattr(result, "rule_errors", None):
            found.append("rule_error")
        if mode is RunMode.CONVERT and result is not None and result.changed and not result.error:
            again = convert_text(result.text, str(path), ctx)
            if again.text != result.text:
                found.append("not_idempotent")
    return sorted(set(found))


def _worker(conn: Connection) -> None:
    ctx = Context(Options(), load_index())
    with tempfile.TemporaryDirectory(prefix="hipify-fuzz-") as tmp:
        work = Path(tmp)
        parent = os.getppid()
        while True:
            while not conn.poll(2):
                if os.getppid() != parent:  # the campaign was killed: do not live on
                    return
            number = conn.recv()
            if number is None:
                return
            data, _ = mutate(number)
            t0 = _cpu_seconds()
            try:
                found = examine(data, work, ctx)
                detail = ""
            except Exception:
                found, detail = ["traceback"], traceback.format_exc()
            conn.send((number, found, _cpu_seconds() - t0, detail))


def _cpu_seconds() -> float:
    """CPU time of this worker and its finished children (the forked parse probes): on a shared
    machine wall time measures the neighbours, not the input."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class Worker:
    def __init__(self) -> None:
        self.conn, child = mp.Pipe()
        self.proc = mp.Process(target=_worker, args=(child,), daemon=True)
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
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--slow", type=float, default=10.0)
    ap.add_argument("--save", type=Path, default=Path("fuzz-failures"))
    args = ap.parse_args()
    args.save.mkdir(parents=True, exist_ok=True)
    todo = iter(range(args.start, args.start + args.inputs))
    counts: Counter = Counter()
    kinds: Counter = Counter()
    slowest = (0.0, -1)
    done = 0
    t_start = time.perf_counter()
    workers = [Worker() for _ in range(args.jobs)]

    def record(number: int, found: list[str], seconds: float, detail: str) -> None:
        nonlocal done, slowest
        done += 1
        slowest = max(slowest, (seconds, number))
        if seconds > args.slow:
            found = [*found, "slow"]
        for problem in found:
            counts[problem] += 1
        if found:
            data, how = mutate(number)
            kinds.update(f"{p}:{how}" for p in found)
            name = f"{number}-{'-'.join(found)}-{how}.cu"
            (args.save / name).write_bytes(data)
            if detail:
                (args.save / f"{number}.txt").write_text(detail)
            print(f"input {number}: {', '.join(found)} ({how}, {len(data)} bytes)", flush=True)
        if done % 250 == 0:
            rate = done / (time.perf_counter() - t_start)
            print(f"{done} inputs, {rate:.1f}/s, {dict(counts)}, slowest {slowest}", flush=True)

    def stop_early(signum: int, frame: object) -> None:
        nonlocal todo
        todo = iter(())  # finish the inputs in flight, then print the summary

    signal.signal(signal.SIGTERM, stop_early)
    signal.signal(signal.SIGINT, stop_early)
    for w in workers:
        nxt = next(todo, None)
        if nxt is not None:
            w.give(nxt)
    while any(w.number is not None for w in workers):
        for i, w in enumerate(workers):
            if w.number is None:
                continue
            if w.conn.poll(0.05):
                try:
                    number, found, seconds, detail = w.conn.recv()
                except EOFError:
                    number, found, seconds, detail = w.number, ["death"], 0.0, "worker died"
                    w.stop()
                    workers[i] = w = Worker()
                record(number, found, seconds, detail)
            elif not w.proc.is_alive() or time.perf_counter() - w.since > 6 * args.slow:
                died = f"exit code {w.proc.exitcode}" if not w.proc.is_alive() else "hung"
                record(w.number, ["death"], time.perf_counter() - w.since, died)
                w.stop()
                workers[i] = w = Worker()
            else:
                continue
            nxt = next(todo, None)
            w.number = None
            if nxt is not None:
                w.give(nxt)
    for w in workers:
        w.conn.send(None)
        w.proc.join(5)
        w.stop()
    elapsed = time.perf_counter() - t_start
    print(f"\n{done} inputs in {elapsed:.0f} s", end="; ")
    print(f"slowest {slowest[0]:.2f} CPU s (input {slowest[1]})")
    for problem in PROBLEMS:
        print(f"  {problem:15} {counts[problem]}")
    for kind, n in kinds.most_common(20):
        print(f"    {n:6} {kind}")
    return 1 if counts else 0


if __name__ == "__main__":
    sys.exit(main())
