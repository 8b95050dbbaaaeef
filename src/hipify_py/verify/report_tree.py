"""``report --verify``: compile-check the conversion the report shows, without writing the
user's output tree.

The converted files (and the files convert would copy: headers, build files) are written to a
temporary tree as each outcome arrives, ``verify`` checks that tree with the conversion's own
context (so its errors map back to the CUDA lines), and the result is the same JSON
``hipify-py verify --format json`` prints, with the temporary root taken out of its paths.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..context import Context
from ..result import Outcome
from ..untrusted import UntrustedInputError, read_regular

COPY_LIMIT = 16 * 1024 * 1024  # a larger copied file (data, not code) is left out of the tree


class VerifyTree:
    """A temporary copy of the converted tree, for ``verify``; a context manager."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="hipify-report-")
        self.root = Path(self._dir.name)

    def __enter__(self) -> VerifyTree:
        return self

    def __exit__(self, *exc: object) -> None:
        self._dir.cleanup()

    def add(self, outcome: Outcome, out: str) -> None:
        """Write ``outcome`` at ``out`` (its place in the output tree) as convert would."""
        result = outcome.result
        if result is not None and outcome.status != "failed":
            data = result.data
        else:
            cand = outcome.candidate
            try:
                data = read_regular(cand.path, COPY_LIMIT, root=cand.within)
            except (UntrustedInputError, OSError):
                return  # not readable, or too large to be code: verify does without it
        target = self.root / out
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def verify(self, ctx: Context, source_root: Path, arch: str, toolchain: str) -> dict:
        """``verify --from source_root --format json`` on the tree; raises ToolchainError
        (and CompileDatabaseError) as ``verify`` does."""
        from . import VerifyOptions, verify_paths  # only with --verify

        options = VerifyOptions.of_conversion(ctx, source_root, arch, toolchain)
        text = json.dumps(verify_paths([self.root], options, convert_options=ctx).to_json())
        # verify names files absolute or relative to the working directory: neither is a
        # place the user knows, the path inside the output tree is
        for root in (str(self.root), os.path.relpath(self.root)):
            text = text.replace(json.dumps(root + os.sep)[1:-1], "")
        return json.loads(text)
