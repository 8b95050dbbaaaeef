"""HZ001 stale-hip-output

## What it detects
Reported by `hipify-py check --in-sync HIPDIR` (alias `--out-dir`): a committed HIP file that
is missing, or whose text differs from what `hipify-py convert` produces today from its CUDA
source (`kernel.cu` -> `HIPDIR/kernel.hip`, or the same name with `--keep-names`).

## Why it breaks on AMD
A repository that keeps generated HIP sources next to the CUDA ones builds the AMD binary from
the HIP copy. When a CUDA change is merged without regenerating it, the AMD build silently
ships old code (or misses a new file).

## Example
```console
$ hipify-py check src/ --in-sync src-hip/
out of sync: src-hip/reduce.hip is stale (first difference at line 42)
```

## How to fix
Regenerate the HIP tree with the same options (`hipify-py convert src/ --out-dir src-hip/`)
and commit it, like `black` after `black --check` fails. This finding cannot be suppressed inline.
"""

from __future__ import annotations

from ..findings import Severity
from ..rules import declare_rule

# reported by `check --in-sync`, not by a pass over one file
STALE_OUTPUT = declare_rule(
    "HZ001",
    "stale-hip-output",
    Severity.ERROR,
    "committed HIP output is missing or out of sync with its CUDA source",
    __doc__,
)
