"""verify's pure parts: arch fallback, diagnostics parsing, compile_commands, source lookup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipify_py.arch_names import arch_name_error
from hipify_py.edits import Edit, apply_edits
from hipify_py.verify import arch as archmod
from hipify_py.verify import discovery, toolchain
from hipify_py.verify.compdb import (
    CompileDatabase,
    CompileDatabaseError,
    parse_flags,
    union_flags,
)
from hipify_py.verify.compile import Flags, collect_sources, parse_diagnostics
from hipify_py.verify.mapback import SourceMap, find_cuda_source

CLANG15_ARCHS = (
    "gfx1030",
    "gfx1100",
    "gfx803",
    "gfx900",
    "gfx906",
    "gfx908",
    "gfx90a",
    "gfx90c",
    "gfx940",
)


def test_fallback_prefers_same_family_newest_datacenter_arch():
    assert archmod.choose_fallback("gfx942", CLANG15_ARCHS) == "gfx940"
    assert archmod.choose_fallback("gfx942", ("gfx908", "gfx90a", "gfx90c", "gfx1030")) == "gfx90a"
    assert archmod.choose_fallback("gfx1201", ("gfx1201", "gfx1200", "gfx1100")) == "gfx1201"
    assert archmod.choose_fallback("gfx1151", ("gfx1030", "gfx1100", "gfx90a")) == "gfx1100"
    assert archmod.choose_fallback("gfx942", ()) is None


def test_arch_order():
    assert archmod.arch_key("gfx942") > archmod.arch_key("gfx940") > archmod.arch_key("gfx90a")
    assert archmod.arch_key("gfx90a") > archmod.arch_key("gfx908")
    assert archmod.arch_family("gfx1100") == "gfx11"


def test_read_hip_version(tmp_path):
    (tmp_path / "hip").mkdir()
    (tmp_path / "hip" / "hip_version.h").write_text(
        "#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 1\n"
    )
    assert toolchain.read_hip_version(tmp_path) == (7, 1)
    assert toolchain.read_hip_version(tmp_path / "nope") is None


def test_discover_without_any_toolchain_is_an_error_naming_the_fetch_command(tmp_path):
    """No AMD compiler: auto does not quietly drop to a syntax-only check (issue 25); it says
    how to get a toolchain, and libclang is there only when asked for."""
    env = {
        "PATH": str(tmp_path),
        "ROCM_PATH": str(tmp_path),
        "HIP_PATH": str(tmp_path),
        "HOME": str(tmp_path),
    }
    with pytest.raises(toolchain.ToolchainError) as err:
        discovery.discover("gfx942", env=env)
    assert "no AMD toolchain found" in str(err.value)
    assert "hipify-py toolchain fetch" in str(err.value) and "--toolchain libclang" in str(
        err.value
    )
    tc = discovery.discover("gfx942", "libclang", env=env)
    assert tc.kind == "libclang"


def _fake(kind: str, arch: str, hip: tuple[int, int]) -> toolchain.Toolchain:
    return toolchain.Toolchain(kind, compiler=f"/x/{kind}", hip_version=hip, arch=arch)


def test_a_toolchain_that_cannot_judge_the_tree_is_never_chosen(monkeypatch):
    """An arch substitution or HIP headers older than the target ROCm make a toolchain unfit:
    discovery refuses it with the reason instead of checking for something else (issue 25:
    hipcc 5.2 for gfx940 FAILed __shfl_down_sync in a tree that targets ROCm 7)."""
    old_hipcc = _fake("hipcc", "gfx940", (5, 2))
    monkeypatch.setattr(discovery, "find_hipcc", lambda env, rocm=None: "/x/hipcc")
    monkeypatch.setattr(discovery, "hipcc_toolchain", lambda hipcc, arch, env: old_hipcc)
    monkeypatch.setattr(
        discovery, "clang_toolchain", lambda *a, **k: _fake("clang", "gfx942", (6, 1))
    )
    with pytest.raises(toolchain.ToolchainError) as err:
        discovery.discover("gfx942", env={}, min_hip=(7, 1))
    msg = str(err.value)
    assert "hipcc (HIP 5.2) does not know gfx942" in msg and "--arch gfx940" in msg
    assert "clang (HIP 6.1) is older than the ROCm 7.1 the tree targets" in msg
    # the same clang is fine for a tree converted for ROCm 6.1, and chosen over the hipcc
    assert discovery.discover("gfx942", env={}, min_hip=(6, 1)).kind == "clang"
    # asking for the arch the old hipcc knows, for a ROCm 5.2 tree, is allowed: nothing hidden
    old_hipcc.arch = "gfx90a"
    monkeypatch.setattr(
        discovery, "clang_toolchain", lambda *a, **k: _fake("clang", "gfx942", (7, 2))
    )
    assert discovery.discover("gfx90a", "hipcc", env={}, min_hip=(5, 2)) is old_hipcc


CLANG_OUTPUT = """\
In file included from /w/k.hip:1:
In file included from /h/hip/hip_runtime.h:57:
/h/hip/amd_detail/amd_warp_sync_functions.h:297:62: error: The mask must be a 64-bit integer.
  297 |   static_assert(sizeof(MaskT) == 8,
      |                                                              ^~~~~~~~~~~~~~~~~~
/w/k.hip:5:40: note: in instantiation of '__shfl_down_sync<unsigned, float>' requested here
    5 |   v += __shfl_down_sync(0xffffffff, v, o);
/w/k.hip:9:3: error: use of undeclared identifier 'cudaFoo'
/w/k.hip:10:3: warning: ignoring return value [-Wunused-result]
In file included from /w/k.hip:2:
/usr/include/x.h:3:1: error: bad header
/usr/include/x.h:4:1: error: bad header again
/w/k.hip:9:3: error: use of undeclared identifier 'cudaFoo'
clang-19: error: unsupported option '--bogus'
1 warning and 4 errors generated when compiling for host.
"""


def test_parse_diagnostics_anchors_and_dedup():
    diags = parse_diagnostics(CLANG_OUTPUT, "/w/k.hip")
    errors = [d for d in diags if d.severity == "error"]
    assert [d.anchor for d in errors] == [(5, 40), (9, 3), (2, 1), (2, 1), None]
    assert "64-bit" in errors[0].message and errors[0].file.endswith("sync_functions.h")
    assert errors[0].notes[0].line == 5
    assert errors[-1].message.startswith("clang-19: unsupported option")
    assert [d.anchor for d in diags if d.severity == "warning"] == [(10, 3)]


def test_compile_commands_flags(tmp_path):
    db = [
        {
            "directory": str(tmp_path / "build"),
            "file": "../src/a.cu",
            "command": "nvcc -I../include -isystem /opt/x -DFOO=1 -D BAR -std=c++20 "
            "-Xcompiler -Wall -c ../src/a.cu",
        }
    ]
    (tmp_path / "build").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text("")
    (tmp_path / "build" / "compile_commands.json").write_text(json.dumps(db))
    cdb = CompileDatabase(tmp_path / "build")
    flags = cdb.flags_for(tmp_path / "hip" / "a.hip", tmp_path / "src" / "a.cu")
    assert flags.include_dirs == (str(tmp_path / "include"),)
    assert flags.system_dirs == ("/opt/x",)
    assert flags.defines == ("FOO=1", "BAR")
    assert flags.std == "c++20"
    # unknown file, same stem: the only entry named a.*
    assert cdb.flags_for(tmp_path / "elsewhere" / "a.hip") == flags
    # -I into the CUDA tree is redirected to the converted tree when it exists
    (tmp_path / "hip" / "include").mkdir(parents=True)
    remapped = parse_flags(db[0], remap=(tmp_path, tmp_path / "hip"))
    assert remapped.include_dirs == (str(tmp_path / "hip" / "include"),)


def test_one_compile_commands_reader_for_convert_and_verify(tmp_path):
    """`convert -p` takes the union of the same flags verify reads per file; entries that are
    not objects or whose command does not split give nothing instead of failing."""
    db = [
        {"directory": str(tmp_path), "file": "a.cu", "command": "nvcc -Iinc -DA=1 -c a.cu"},
        {"directory": str(tmp_path), "file": "b.cu", "arguments": ["nvcc", "-I", "inc", "-DB"]},
        {"directory": str(tmp_path), "file": "c.cu", "command": "nvcc 'unbalanced -Ix"},
        "not an entry",
    ]
    (tmp_path / "compile_commands.json").write_text(json.dumps(db))
    union = union_flags(tmp_path)
    assert union.include_dirs == (str(tmp_path / "inc"),)
    assert union.defines == ("A=1", "B")
    assert CompileDatabase(tmp_path).flags_for(tmp_path / "b.cu").defines == ("B",)
    (tmp_path / "compile_commands.json").write_text("[{")
    with pytest.raises(CompileDatabaseError, match="cannot read compilation database"):
        union_flags(tmp_path)
    with pytest.raises(CompileDatabaseError, match="compilation database: cannot read"):
        CompileDatabase(tmp_path / "nowhere")
    from click.testing import CliRunner

    from hipify_py.cli.verify import verify

    (tmp_path / "k.hip").write_text("")
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(verify, [str(tmp_path), "-p", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "compilation database" in result.output


def test_flags_args():
    f = Flags(include_dirs=("/i",), defines=("A=1",), forced_includes=("pre.h",))
    assert f.args() == ["-I/i", "-DA=1", "-include", "pre.h"]


def test_collect_sources_skips_headers_and_build_trees(tmp_path):
    names = ("a.hip", "b.cpp", "c.cu", "d.cc", "e.h", "f.cuh", "build/g.hip", "n.txt")
    for name in (*names, "build/CMakeCache.txt"):
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    found = sorted(p.name for p, _ in collect_sources([tmp_path]))
    assert found == ["a.hip", "b.cpp", "c.cu", "d.cc"]  # build/ is a CMake build tree


def test_find_cuda_source_renamed_and_same_name(tmp_path):
    cuda, hip = tmp_path / "cuda", tmp_path / "hip"
    (cuda / "src").mkdir(parents=True)
    (hip / "src").mkdir(parents=True)
    (cuda / "src" / "k.cu").write_text("")
    (cuda / "src" / "main.cpp").write_text("")
    assert find_cuda_source(hip / "src" / "k.hip", hip, cuda) == cuda / "src" / "k.cu"
    assert find_cuda_source(hip / "src" / "main.cpp", hip, cuda) == cuda / "src" / "main.cpp"
    assert find_cuda_source(hip / "src" / "zzz.hip", hip, cuda) is None


def test_sourcemap_exact_through_inserted_lines():
    cuda = "int a;\ncudaFoo(x);\nint b;\n"
    applied = apply_edits(
        cuda,
        [Edit(0, 0, "#include <hip/hip_runtime.h>\n\n", "hdr"), Edit(7, 14, "hipFooBar", "rename")],
    )
    smap = SourceMap("k.hip", applied.text, "k.cu", cuda, applied=applied)
    assert applied.text.splitlines()[3] == "hipFooBar(x);"
    where = smap.to_cuda(4, 10)  # the "(" after hipFooBar
    assert (where["line"], where["column"], where["exact"]) == (2, 8, True)
    assert where["source"] == "cudaFoo(x);"


def test_sourcemap_by_line_when_not_reproducible():
    cuda = "a\nb\nc\nd\n"
    hip = "x\ny\na\nb\nC\nd\n"  # two lines added on top, one changed
    smap = SourceMap("k.hip", hip, "k.cu", cuda)
    assert not smap.exact
    assert smap.to_cuda(5, 1)["line"] == 3
    assert smap.to_cuda(6, 1)["line"] == 4


def test_cli_no_files_is_usage_error(tmp_path):
    from click.testing import CliRunner

    from hipify_py.cli.verify import verify

    (tmp_path / "only.h").write_text("")
    result = CliRunner().invoke(verify, [str(tmp_path), "--toolchain", "libclang"])
    assert result.exit_code == 2
    result = CliRunner().invoke(verify, [str(tmp_path / "missing")])
    assert result.exit_code == 2


def test_libclang_syntax_only_without_headers(tmp_path):
    from hipify_py.verify import VerifyOptions, verify_paths

    good = tmp_path / "good.hip"
    good.write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1; }\n"
        "void h() { hipLaunchKernelGGL(k, dim3(1), dim3(1), 0, 0, nullptr); }\n"
    )
    bad = tmp_path / "bad.hip"
    bad.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* x) {\n  x[0] = 1\n}\n")
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path), "ROCM_PATH": str(tmp_path)}
    report = verify_paths([tmp_path], VerifyOptions(toolchain="libclang", env=env, jobs=1))
    assert report.toolchain.kind == "libclang"
    status = {Path(f.path).name: f.status for f in report.files}
    assert status == {"bad.hip": "failed", "good.hip": "passed"}
    (err,) = next(f for f in report.files if f.path.endswith("bad.hip")).errors
    assert err.anchor[0] == 3 and err.message.startswith("expected ';'")


def test_arch_names_are_validated():
    for good in (
        "gfx942",
        "gfx90a",
        "gfx1100",
        "gfx1151",
        "gfx9999",
        "gfx90a:xnack+",
        "gfx942:sramecc+:xnack-",
        "gfx9-generic",
        "gfx10-3-generic",
    ):
        assert arch_name_error(good) is None, good
    for bad in (
        "banana",
        "",
        "gfx",
        "gfx94",
        "gfx12345",
        "gfx942:",
        "gfx942:xnack",
        "942",
        "sm_80",
        "gfx 942",
    ):
        assert arch_name_error(bad), bad
    # target features do not change the family or the fallback
    assert archmod.arch_family("gfx90a:xnack+") == "gfx9"
    assert archmod.choose_fallback("gfx90a:xnack+", ["gfx908", "gfx1030"]) == "gfx908"


def test_cli_malformed_arch_is_usage_error(tmp_path):
    from click.testing import CliRunner

    from hipify_py.cli.verify import verify

    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    for arch in ("banana", "gfx94", "gfx942:xnack"):
        result = CliRunner().invoke(verify, [str(tmp_path), "--arch", arch])
        assert result.exit_code == 2, result.output
        assert "--arch" in result.output and "not an AMD GPU arch" in result.output


def test_unknown_arch_family_is_an_error_not_a_cross_family_fallback():
    import pytest

    assert archmod.arch_family("gfx9999") == "gfx99"
    assert archmod.arch_family("gfx90z") == "gfx9"
    assert archmod.arch_family("gfx10-3-generic") == "gfx10"
    # the same-family fallback stays (gfx942 on hipcc 5.2 -> gfx940)
    assert archmod.choose_fallback("gfx942", CLANG15_ARCHS) == "gfx940"
    assert archmod.choose_fallback("gfx90z", ("gfx908", "gfx90a", "gfx1030")) == "gfx90a"
    for arch in ("gfx9999", "gfx1201"):
        with pytest.raises(archmod.UnknownArchFamilyError) as info:
            archmod.choose_fallback(arch, CLANG15_ARCHS, "clang-15")
        message = str(info.value)
        assert f"family {archmod.arch_family(arch)} is unknown to clang-15" in message
        assert "gfx8, gfx9, gfx10, gfx11" in message


def test_cli_unknown_arch_family_is_usage_error(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from hipify_py.cli import verify as verify_cli

    def fake_verify_paths(paths, options, convert_options=None):
        archmod.choose_fallback(options.arch, CLANG15_ARCHS, "clang-15")
        raise AssertionError("unreachable")

    monkeypatch.setattr(verify_cli, "verify_paths", fake_verify_paths)
    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    result = CliRunner().invoke(verify_cli.verify, [str(tmp_path), "--arch", "gfx9999"])
    assert result.exit_code == 2, result.output
    assert "--arch" in result.output and "gfx99 is unknown" in result.output


def test_cli_explicit_hip_include_or_rocm_path_must_exist(tmp_path):
    from click.testing import CliRunner

    from hipify_py.cli.verify import verify

    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(verify, [str(tmp_path / "k.hip"), "--hip-include", str(empty)])
    assert result.exit_code == 2
    assert "--hip-include" in result.output and "hip/hip_runtime.h" in result.output
    result = CliRunner().invoke(
        verify, [str(tmp_path / "k.hip"), "--rocm-path", str(empty), "--toolchain", "hipcc"]
    )
    assert result.exit_code == 2
    assert "--rocm-path" in result.output and "bin/hipcc" in result.output


def test_cli_named_non_source_files_are_skipped(tmp_path):
    from click.testing import CliRunner

    from hipify_py.cli.verify import verify

    readme = tmp_path / "README.md"
    readme.write_text("# not HIP\n")
    result = CliRunner().invoke(verify, [str(readme)])
    assert result.exit_code == 2
    assert f"skipped {readme}: not a HIP source" in result.output
    assert "nothing to check" in result.output
    (tmp_path / "k.c++").write_text("int main() { return 0; }\n")
    assert [p.name for p, _ in collect_sources([readme, tmp_path / "k.c++"])] == ["k.c++"]
