"""The CUDA release a port is read as: the values of the CUDA toolkit's version macros.

One fact used twice: ``rewrite/version_gates`` writes these values in place of the macros in
the converted code, and the hermetic parse (``frontend/stub``) defines them, so the branches
``--skip-inactive`` keeps are the ones the converted gates select.  CUDA 12.0 because the HIP 7
API covers what CUDA 11 and 12.0 offer, while branches for later releases use what HIP lacks
or spells differently (see ``rewrite/version_gates``).
"""

from __future__ import annotations

REFERENCE_CUDA = "12.0"


def macro_values(release: str) -> dict[str, int]:
    """The value of each version macro on CUDA ``release`` ("12.0")."""
    major, minor = (int(x) for x in release.split("."))
    return {
        "CUDA_VERSION": major * 1000 + minor * 10,
        "CUDART_VERSION": major * 1000 + minor * 10,
        "__CUDACC_VER_MAJOR__": major,
        "__CUDACC_VER_MINOR__": minor,
        "__CUDACC_VER_BUILD__": 0,
        "__CUDA_API_VER_MAJOR__": major,
        "__CUDA_API_VER_MINOR__": minor,
    }


# the value of each macro on the reference release, as the converted code spells it
VERSION_MACROS = {name: str(value) for name, value in macro_values(REFERENCE_CUDA).items()}
