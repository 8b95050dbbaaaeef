"""CUDA libraries -> ROCm libraries, as CMake targets/packages and as linker names.

Facts from the CMake package configs ROCm 7.2 installs (``lib/cmake/<package>``): each row is
CUDA library -> (HIP-API library, its CMake package, its imported target) and the same for the
``roc*`` library that ``--roc`` selects. A CUDA library with no row here is reported (HB104).
"""

from __future__ import annotations

from typing import NamedTuple

from ..context import Options
from ..findings import Severity
from ..rules import declare_rule

NO_ROCM_LIBRARY = declare_rule(
    "HB104",
    "cuda-library-without-rocm",
    Severity.WARNING,
    "CUDA library with no ROCm counterpart in the build file",
    """
    ## What it detects
    A CUDA library named in a build file (`CUDA::cupti`, `-lnvjpeg`, `CUDA::nppc`,
    `-lnvidia-ml`, ...) that has no ROCm library hipify-py can substitute.

    ## Why it breaks on AMD
    The library does not exist in ROCm, so the link fails; the code that calls it needs a port
    (rocprofiler for CUPTI, rocJPEG for nvJPEG, amdsmi for NVML).

    ## Example
    ```cmake
    target_link_libraries(app PRIVATE CUDA::cupti)   # HB104
    ```

    ## How to fix
    Port the calls to the ROCm library that does the job and link that one, or drop the
    dependency on AMD builds.
    """,
)


class RocmLib(NamedTuple):
    link: str  # -l name
    package: str | None  # find_package() name (None: linked by name)
    target: str  # CMake imported target (or the plain library name)


_HIP_RUNTIME = RocmLib("amdhip64", "hip", "hip::host")
# CUDA library base name -> (HIP-API library, roc* library for --roc)
_TABLE: dict[str, tuple[RocmLib, RocmLib | None]] = {
    "cudart": (_HIP_RUNTIME, None),
    "cuda": (_HIP_RUNTIME, None),
    "cuda_driver": (_HIP_RUNTIME, None),
    "cublas": (
        RocmLib("hipblas", "hipblas", "roc::hipblas"),
        RocmLib("rocblas", "rocblas", "roc::rocblas"),
    ),
    "cublasLt": (RocmLib("hipblaslt", "hipblaslt", "roc::hipblaslt"), None),
    "cusparse": (
        RocmLib("hipsparse", "hipsparse", "roc::hipsparse"),
        RocmLib("rocsparse", "rocsparse", "roc::rocsparse"),
    ),
    "curand": (
        RocmLib("hiprand", "hiprand", "hip::hiprand"),
        RocmLib("rocrand", "rocrand", "roc::rocrand"),
    ),
    "cufft": (
        RocmLib("hipfft", "hipfft", "hip::hipfft"),
        RocmLib("rocfft", "rocfft", "roc::rocfft"),
    ),
    "cufftw": (RocmLib("hipfftw", "hipfft", "hip::hipfftw"), None),
    "cusolver": (
        RocmLib("hipsolver", "hipsolver", "roc::hipsolver"),
        RocmLib("rocsolver", "rocsolver", "roc::rocsolver"),
    ),
    "nvrtc": (RocmLib("hiprtc", "hiprtc", "hiprtc::hiprtc"), None),
    # NVTX calls become the no-ops of convert's shim (rewrite/_shim_texts.py): nothing is left to
    # link, and ROCm 7.2.4 ships no roctx library; the HIP runtime stands in, valid wherever the
    # CUDA name was (a link list, ``if(TARGET CUDA::nvtx3)``)
    "nvToolsExt": (_HIP_RUNTIME, None),
    "nvtx3": (_HIP_RUNTIME, None),
    "nccl": (RocmLib("rccl", "rccl", "roc::rccl"), None),
    "cudnn": (RocmLib("MIOpen", "miopen", "MIOpen"), None),
}
# CUDA libraries ROCm has nothing to substitute for
UNSUPPORTED = frozenset(
    {"cupti", "nvjpeg", "nvml", "nvidia-ml", "cufile", "nvjitlink", "nvptxcompiler", "cudadevrt"}
    | {"npp" + s for s in ("c", "ial", "icc", "idei", "if", "ig", "im", "ist", "isu", "itc", "s")}
)


def rocm_library(cuda: str, options: Options) -> RocmLib | None:
    """The ROCm library for a CUDA library name (``cublas``, ``cublas_static``, ``cudart``)."""
    base = cuda.removesuffix("_static")
    row = _TABLE.get(base)
    if row is None or (base == "cudnn" and not options.miopen):  # cuDNN -> MIOpen is opt-in
        return None
    hip, roc = row
    return roc if options.roc and roc is not None else hip


# What FindCUDAToolkit's imported target links besides the library itself (CMake 3.25:
# ``cusolver DEPS cublas cusparse``): code built against CUDA::cusolver may call cuSPARSE
# (cuda-samples' helper_cusolver.h) without naming it; roc::hipsolver brings no hipSPARSE.
TARGET_DEPS: dict[str, tuple[str, ...]] = {"cusolver": ("cublas", "cusparse")}


def linked_with(cuda: str, options: Options) -> list[RocmLib]:
    """The ROCm libraries that stand in for the CUDA libraries ``CUDA::<cuda>`` links too."""
    deps = (rocm_library(d, options) for d in TARGET_DEPS.get(cuda.removesuffix("_static"), ()))
    return [d for d in deps if d is not None]


def is_cuda_library(name: str) -> bool:
    base = name.removesuffix("_static")
    return base in _TABLE or base in UNSUPPORTED
