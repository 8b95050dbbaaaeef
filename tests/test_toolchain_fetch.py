"""`hipify-py toolchain fetch` against a stand-in apt-get: the packages it asks for, the private
apt configuration, real .deb files unpacked with dpkg, the version check, and a set that appears
whole where `verify` looks (issue 25: onboarding must not need anything outside the repo)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import require_tool
from hipify_py.cli import root
from hipify_py.verify import clang_hip, fetch

FAKE_APT = """#!/bin/sh
# records its arguments; `download` copies the prebuilt .deb files into the working directory
echo "$@" >> "{log}"
case " $* " in
  *" download "*) cp "{debs}"/*.deb . ;;
esac
"""


def _deb(where: Path, package: str, version: str, files: dict[str, str]) -> None:
    root = where / f"{package}-src"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {package}\nVersion: {version}\nArchitecture: all\n"
        "Maintainer: t <t@example.org>\nDescription: test\n"
    )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(
        ["dpkg-deb", "--build", "--root-owner-group", str(root), str(where / f"{package}.deb")],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def fake_apt(tmp_path, monkeypatch):
    require_tool("dpkg-deb")
    debs, bin_dir = tmp_path / "debs", tmp_path / "bin"
    debs.mkdir()
    bin_dir.mkdir()
    log = tmp_path / "apt.log"
    apt = bin_dir / "apt-get"
    apt.write_text(FAKE_APT.format(log=log, debs=debs))
    apt.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    sources = tmp_path / "debian.sources"
    sources.write_text("Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n")
    monkeypatch.setattr(fetch, "APT_SOURCES", (str(sources),))
    return debs, log


HIP_VERSION_H = "#define HIP_VERSION_MAJOR 7\n#define HIP_VERSION_MINOR 2\n"


def test_fetch_unpacks_into_the_cache_verify_reads(tmp_path, fake_apt):
    debs, log = fake_apt
    _deb(
        debs,
        "libamdhip64-dev",
        "7.2.4-1~exp2",
        {
            "usr/include/hip/hip_runtime.h": "// hip\n",
            "usr/include/hip/hip_version.h": HIP_VERSION_H,
        },
    )
    _deb(debs, "libhipblas-dev", "7.2.4-1~exp1", {"usr/include/hipblas/hipblas.h": "// b\n"})
    result = CliRunner().invoke(root, ["toolchain", "fetch"])
    assert result.exit_code == 0, result.output
    dest = tmp_path / "cache" / "hipify-py" / "rocm-7.2.4"
    assert result.stdout.strip() == str(dest / "usr")
    assert (dest / "usr" / "include" / "hipblas" / "hipblas.h").is_file()
    listing = (dest / "PACKAGES.txt").read_text()
    assert "Package: libamdhip64-dev Version: 7.2.4-1~exp2" in listing
    # it says what it downloads, and apt ran with a private configuration only
    assert "libamdhip64-dev/experimental" in result.stderr
    assert "rocm-device-libs-17/trixie" in result.stderr
    calls = log.read_text().splitlines()
    assert calls[0].endswith(" update") and " download " in calls[1]
    assert all("Dir::Etc::sourceparts=-" in c and "Dir::State::Lists=" in c for c in calls)
    sources = [a for a in calls[0].split() if a.startswith("Dir::Etc::sourcelist=")]
    assert sources and "/.fetch-" in sources[0]  # a temporary list, gone afterwards
    assert not list(dest.parent.glob(".fetch-*"))
    # verify's discovery finds the set there by itself
    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert clang_hip.find_hip_include(env) == str(dest / "usr" / "include")
    # a second run keeps it
    again = CliRunner().invoke(root, ["toolchain", "fetch"])
    assert again.exit_code == 0 and "already there" in again.stderr
    assert len(log.read_text().splitlines()) == 2


def test_fetch_refuses_another_rocm_and_leaves_nothing(tmp_path, fake_apt):
    debs, _ = fake_apt
    _deb(debs, "libamdhip64-dev", "7.3.0-1", {"usr/include/hip/hip_version.h": HIP_VERSION_H})
    result = CliRunner().invoke(root, ["toolchain", "fetch"])
    assert result.exit_code == 1
    assert "no longer has ROCm 7.2.4 (Package: libamdhip64-dev Version: 7.3.0-1)" in result.stderr
    cache = tmp_path / "cache" / "hipify-py"
    assert not (cache / "rocm-7.2.4").exists() and not list(cache.glob(".fetch-*"))


def test_mirror_is_read_from_either_apt_sources_form(tmp_path):
    one_line = tmp_path / "sources.list"
    one_line.write_text("# c\ndeb [arch=amd64] http://ftp.example/debian/ bookworm main\n")
    assert fetch.debian_mirror((str(tmp_path / "none"), str(one_line))) == (
        "http://ftp.example/debian"
    )
    with pytest.raises(fetch.FetchError, match="no Debian archive"):
        fetch.debian_mirror((str(tmp_path / "none"),))
