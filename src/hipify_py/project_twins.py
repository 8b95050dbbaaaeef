"""The tree's CUDA files that have a HIP twin beside them (``ProjectIndex.cuda_twins``):
FlexFlow keeps `src/ops/kernels/softmax.cu` beside the `softmax.cpp` that includes
<hip/hip_runtime.h> and calls MIOpen, and `cuda_helper.h` beside `hip_helper.h`; its ROCm
build compiles the twin, so the CUDA file's findings are not the port's (round 29: 5 false
HZ300 at cuDNN calls).  Pure: the paths and what they hold come from the caller."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import NamedTuple

# what a project names the HIP source it keeps beside a `.cu` file (``ProjectIndex.cuda_twins``)
_TWIN_SUFFIXES = (".cpp", ".cc", ".cxx", ".hip", ".h", ".hpp")
# a file that may have a HIP twin: a `.cu` or `.cuh` file, or one whose name says CUDA
_CUDA_FILE = re.compile(r"(?:\.cuh?|cuda[^/]*)$", re.I)
# a HIP or MIOpen name (`hipStream_t`, `miopenCreateTensorDescriptor`): a source that includes
# HIP through a header of its own (FlexFlow's `hip_helper.h`) is HIP code by what it calls
_HIP_API = re.compile(rb"\b(?:hip|miopen)[A-Z]\w*")


def is_hip_code(data: bytes) -> bool:
    """A text that calls HIP's or MIOpen's API (a file that includes HIP through a header of
    its own: FlexFlow's `hip_helper.h`)."""
    return _HIP_API.search(data) is not None


class Twins(NamedTuple):
    """The tree's CUDA files with a HIP twin, and those twins: absolute paths, named as the
    ``ProjectIndex`` fields they fill."""

    cuda_twins: frozenset[str]
    hip_twins: frozenset[str]


def twins_of(files: Iterable[tuple[Path, bool]], includes: Mapping[str, AbstractSet[str]]) -> Twins:
    """The CUDA files among ``files`` (each with whether it is HIP code: a `.hip` file, or one
    that includes HIP's headers or calls its API) with a twin of HIP code in the same
    directory: a `.cu` file's source of the same name, a `.cuh` header's `.hip` file (sppark's
    `mont_t.cuh`, included under `__CUDA_ARCH__`, and the `mont_t.hip` its includers take
    under `__HIPCC__`, round 30), a file of its name with `hip` for `cuda`, or, for a name without
    `cuda`, one with `_hip` after it (hkevin01's `convolution.cu` beside the `convolution_hip.hip`
    its CMake builds, round 46: 1 false HZ320).  A file that includes
    its twin (``includes``: base name -> the base names it includes) is compiled with it:
    fastllm's `fastllm-cuda.cuh` includes the `fastllm-hip.h` of its HIP build's shims.  The
    twins are code only the project's HIP build compiles: FlexFlow's `inc_multihead_self_attention
    .cpp` and its `#define WARP_SIZE 32`, the project's own choice for AMD (round 29: 3 false
    HZ107)."""
    pairs = list(files)
    hip_files = {f for f, hip in pairs if hip}
    out: set[str] = set()
    hip_twins: set[str] = set()
    for f in (f for f, hip in pairs if not hip and _CUDA_FILE.search(f.name)):
        swapped = re.sub("cuda", "hip", re.sub("CUDA", "HIP", re.sub("Cuda", "Hip", f.stem)))
        stems = [swapped] if swapped != f.stem else [f.stem + "_hip", f.stem + "-hip"]
        twins = {f.with_name(stem + suffix) for stem in stems for suffix in _TWIN_SUFFIXES}
        if f.suffix == ".cu":
            twins |= {f.with_suffix(suffix) for suffix in _TWIN_SUFFIXES}
        elif f.suffix == ".cuh":  # a header's twin is the `.hip` its includers pick for HIP
            twins.add(f.with_suffix(".hip"))
        found = twins & hip_files
        if found and not {t.name for t in found} & includes.get(f.name, set()):
            out.add(str(f))
            hip_twins.update(str(t) for t in found)
    return Twins(frozenset(out), frozenset(hip_twins))
