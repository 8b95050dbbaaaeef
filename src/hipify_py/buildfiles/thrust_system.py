"""A build file's ``THRUST_DEVICE_SYSTEM_CUDA`` becomes rocThrust's ``THRUST_DEVICE_SYSTEM_HIP``.

A project may choose Thrust's device system in its build
(`target_compile_definitions(... THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CUDA)`,
High-Performance-BVH-Builder, compile round 43).  rocThrust 7.2.4 keeps the CUDA value, and
with it includes its CUDA backend, which needs CUB: every file that includes Thrust fails
("'cub/detail/detect_cuda_runtime.cuh' file not found").  The HIP system is the one a HIP build
means; the sources' own uses of the name follow the mapping table (``mappings/extras.yaml``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..context import Context
from ..edits import Edit
from ..findings import Finding
from ..rules import build_pass
from .unit import BUILD_EDITS, BuildFile

RULE = "build/thrust-device-system"
_CUDA_SYSTEM = re.compile(r"\bTHRUST_DEVICE_SYSTEM_CUDA\b")


@build_pass("cmake", "thrust-device-system", tallies=(BUILD_EDITS,))
@build_pass("make", "thrust-device-system", tallies=(BUILD_EDITS,))
@build_pass("setuptools", "thrust-device-system", tallies=(BUILD_EDITS,))
def thrust_device_system(unit: BuildFile, ctx: Context) -> Iterator[Edit | Finding]:
    for m in _CUDA_SYSTEM.finditer(unit.text):
        if not unit.in_comment(m.start()):
            yield Edit(m.start(), m.end(), "THRUST_DEVICE_SYSTEM_HIP", RULE)
