"""A kernel template is compiled only where something instantiates it: a launch, an explicit
instantiation, a mention a runtime could resolve.  One the tree never names has no GPU code,
so a hazard that bites where code runs or a template is instantiated never bites in it
(CUDABeaver's layernorm kernels that nothing launches, round 40: a false HZ401 for 65,600
bytes of shared memory and a false HZ103), and a 32-bit mask's static_assert never fires in
one.  A kernel that is no template stays a root: a runtime may find it by name."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from _units import assert_nvcc_builds
from hipify_py.cli.check import check

BODY = """(float* out, const float* in) {{
  float v = in[threadIdx.x];
  v += __shfl_xor_sync(0x3, v, 1);
  unsigned votes = __ballot_sync(0xffffffffu, v > 0.0f);
  out[threadIdx.x] = v + __popc(votes) + {d};
}}
"""
KERNELS = (
    "template <int D>\n__global__ void unused_kernel"
    + BODY.format(d="D")
    + "template <int D>\n__global__ void used_kernel"
    + BODY.format(d="D")
    + "__global__ void plain_kernel"
    + BODY.format(d="1")
    + """void run(float* out, const float* in) {
  used_kernel<4><<<1, 256>>>(out, in);
}
"""
)


def test_hip_compiles_a_kernel_template_only_where_it_is_instantiated(
    gfx942_check: Callable[[Path], subprocess.CompletedProcess], tmp_path: Path
) -> None:
    src = tmp_path / "k.hip"
    kernel = "#include <hip/hip_runtime.h>\ntemplate <int D>\n__global__ void k" + BODY.format(
        d="D"
    )
    src.write_text(kernel)
    assert gfx942_check(src).returncode == 0
    src.write_text(kernel + "template __global__ void k<4>(float*, const float*);\n")
    assert "The mask must be a 64-bit integer" in gfx942_check(src).stderr


def test_a_kernel_template_nothing_launches_has_no_runtime_findings(
    nvcc: str, tmp_path: Path
) -> None:
    tree = tmp_path / "proj"
    tree.mkdir()
    (tree / "k.cu").write_text(KERNELS)
    assert_nvcc_builds(nvcc, [tree / "k.cu"], [], tmp_path)
    args = [str(tree), "--select", "HZ105,HZ106", "--format", "json", "--no-cache"]
    found = json.loads(CliRunner().invoke(check, args, catch_exceptions=False).output)["findings"]
    kernels = {
        n: KERNELS[: KERNELS.index(f" {n}(")].count("\n") + 1
        for n in ("unused_kernel", "used_kernel", "plain_kernel")
    }
    at = {(f["rule"], _owner(f["line"], kernels)) for f in found}
    assert at == {
        ("HZ105", "used_kernel"),
        ("HZ106", "used_kernel"),
        ("HZ105", "plain_kernel"),
        ("HZ106", "plain_kernel"),
    }


def _owner(line: int, kernels: dict[str, int]) -> str:
    """The kernel whose definition holds ``line``: the last one starting at or before it."""
    return max((start, name) for name, start in kernels.items() if start <= line)[1]
