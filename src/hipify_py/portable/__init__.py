"""``convert --portable``: one CUDA source that builds with nvcc and for ROCm.

Instead of a forked HIP tree, the conversion's edits are folded back onto the CUDA text:
renames become ``#define``s in a generated ``hip_compat.h`` (``compat_header``), CUDA header
includes become that header plus a guarded HIP include, and every other AMD rewrite (64-bit
warp masks, ``HIP_SYMBOL``, shims, version gates) is written as a ``__HIP_PLATFORM_AMD__``
branch beside the untouched CUDA line (``source``).
"""
