"""Byte sizes of C types by the words that spell them, as the HIP/AMD build (LP64 Linux)
sees them: the table `sizeof` is read from, and integer types written as words."""

from __future__ import annotations

from collections.abc import Sequence

SIZEOF = {
    "char": 1,
    "bool": 1,
    "int8_t": 1,
    "uint8_t": 1,
    "unsigned char": 1,
    "short": 2,
    "ushort": 2,  # glibc <sys/types.h> typedefs, common in CUDA samples
    "half": 2,
    "__half": 2,
    "int16_t": 2,
    "uint16_t": 2,
    "__nv_bfloat16": 2,
    "__hip_bfloat16": 2,
    "hip_bfloat16": 2,
    "int": 4,
    "unsigned": 4,
    "unsigned int": 4,
    "uint": 4,
    "float": 4,
    "int32_t": 4,
    "uint32_t": 4,
    "half2": 4,
    "__half2": 4,
    "double": 8,
    "long": 8,
    "long long": 8,
    "unsigned long long": 8,
    "int64_t": 8,
    "uint64_t": 8,
    "size_t": 8,
    "clock_t": 8,  # long on LP64 Linux, the only host HIP builds on here
    "float2": 8,
    "int2": 8,
    "float4": 16,
    "int4": 16,
    "double2": 16,
}


_WIDE_WORDS = frozenset({"uint64_t", "int64_t", "size_t", "uintptr_t", "intptr_t", "u64"})


_NARROW_WORDS = frozenset({"uint32_t", "int32_t", "uint", "u32", "int", "unsigned", "short"})


def words_size(words: Sequence[str]) -> int | None:
    """Size in bytes of an integer type spelled by ``words`` (`unsigned long long` 8,
    `uint32_t` 4), typedefs not followed: None for any other single word."""
    if words.count("long") == 2 or set(words) & _WIDE_WORDS:
        return 8
    if len(words) == 1 and words[0] not in _NARROW_WORDS:
        return None
    if words.count("long") == 1:
        return 8
    if set(words) <= _NARROW_WORDS | {"signed"}:
        return 2 if "short" in words else 4
    return None
