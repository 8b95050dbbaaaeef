"""CUDA enum types with no HIP counterpart that code uses only as data, defined for the port.

NVIDIA's library samples keep their helpers in one shared header that every sample includes
(issue 23): CUDALibrarySamples' ``cublas_utils.h`` computes a workspace size from a CUDA 13
``cudaEmulationMantissaControl``, ``cusolver_utils.h`` keeps a ``cusolverPrecType_t`` per scalar
type and parses ``cusolverIRSRefinement_t`` names from strings.  ROCm 7.2.4 has neither the
emulation API nor cuSOLVER's iterative-refinement (IRS) API, so the types are missing and every
sample failed to compile, although only the few samples that call those APIs need them.

The enums are plain data (``library_types.h`` and ``cusolver_common.h`` declare nothing else
with them), so the port can define them as CUDA does, names and values unchanged: the helpers
compile and behave as before, and a sample that passes one to a CUDA-only API
(``cusolverDnIRSXgesv``, ``cublasSetEmulationStrategy``) still fails at that call, where HZ300
reports it as an error.  HZ300 reports the types and values themselves as warnings (defined
here, no HIP API takes them).  The text is inserted by ``shims.py`` like every other shim: once
per file, after the includes before the first use, behind a guard, and not on HIP's NVIDIA
platform (CUDA's own headers define them there).
"""

from __future__ import annotations

_EMULATION = """\
// hipify-py shim: CUDA 13's floating-point emulation enums (library_types.h), CUDA's names and
// values; plain data here: ROCm 7.2.4 has no emulation API that takes them
typedef enum cudaEmulationStrategy_t {
  CUDA_EMULATION_STRATEGY_DEFAULT = 0,
  CUDA_EMULATION_STRATEGY_PERFORMANT = 1,
  CUDA_EMULATION_STRATEGY_EAGER = 2,
} cudaEmulationStrategy;
typedef enum cudaEmulationMantissaControl_t {
  CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC = 0,
  CUDA_EMULATION_MANTISSA_CONTROL_FIXED = 1,
} cudaEmulationMantissaControl;
typedef enum cudaEmulationSpecialValuesSupport_t {
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT = 0xFFFF,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NONE = 0,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_INFINITY = 1,
  CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_NAN = 2,
} cudaEmulationSpecialValuesSupport;
"""

_CUSOLVER_IRS = """\
// hipify-py shim: cuSOLVER's iterative-refinement enums (cusolver_common.h), CUDA's names and
// values; plain data here: hipSOLVER (ROCm 7.2.4) has no IRS API that takes them
typedef enum {
  CUSOLVER_IRS_REFINE_NOT_SET = 1100,
  CUSOLVER_IRS_REFINE_NONE = 1101,
  CUSOLVER_IRS_REFINE_CLASSICAL = 1102,
  CUSOLVER_IRS_REFINE_CLASSICAL_GMRES = 1103,
  CUSOLVER_IRS_REFINE_GMRES = 1104,
  CUSOLVER_IRS_REFINE_GMRES_GMRES = 1105,
  CUSOLVER_IRS_REFINE_GMRES_NOPCOND = 1106,
  CUSOLVER_PREC_DD = 1150,
  CUSOLVER_PREC_SS = 1151,
  CUSOLVER_PREC_SHT = 1152,
} cusolverIRSRefinement_t;
typedef enum {
  CUSOLVER_R_8I = 1201,
  CUSOLVER_R_8U = 1202,
  CUSOLVER_R_64F = 1203,
  CUSOLVER_R_32F = 1204,
  CUSOLVER_R_16F = 1205,
  CUSOLVER_R_16BF = 1206,
  CUSOLVER_R_TF32 = 1207,
  CUSOLVER_R_AP = 1208,
  CUSOLVER_C_8I = 1211,
  CUSOLVER_C_8U = 1212,
  CUSOLVER_C_64F = 1213,
  CUSOLVER_C_32F = 1214,
  CUSOLVER_C_16F = 1215,
  CUSOLVER_C_16BF = 1216,
  CUSOLVER_C_TF32 = 1217,
  CUSOLVER_C_AP = 1218,
} cusolverPrecType_t;
"""


def _names(text: str) -> frozenset[str]:
    """Every type, tag and enumerator the shim text defines (a use of any one needs it)."""
    names = set()
    for line in text.splitlines():
        words = line.replace(",", " ").replace(";", " ").replace("{", " ").split()
        if line.startswith("typedef enum") and len(words) > 2:
            names.add(words[2])
        elif line.startswith("}") and words:
            names.add(words[-1].lstrip("}"))
        elif line.startswith("  ") and "=" in words:
            names.add(words[0])
    return frozenset(n for n in names if n)


# guard -> (text, names): the shim goes into a file that names any of them
DATA_SHIMS: dict[str, tuple[str, frozenset[str]]] = {
    "HIPIFY_PY_SHIM_CUDA_EMULATION_ENUMS": (_EMULATION, _names(_EMULATION)),
    "HIPIFY_PY_SHIM_CUSOLVER_IRS_ENUMS": (_CUSOLVER_IRS, _names(_CUSOLVER_IRS)),
}
DATA_SHIMMED = frozenset().union(*(names for _, names in DATA_SHIMS.values()))
