"""``hipify-py toolchain fetch``: a ROCm 7 header set for ``verify`` without installing ROCm.

Debian packages ROCm 7.2.4 in its ``experimental`` suite.  This downloads the -dev packages
(HIP, the hip*/roc* libraries, RCCL, MIOpen, ...) and the gfx942 device libraries built for
LLVM 17 (``rocm-device-libs-17`` from trixie, which clang-19 can read) with ``apt-get download``
through a private apt configuration in a temporary directory (the machine's apt state and
sources are never touched; only the archive host is read from them), unpacks them with
``dpkg -x`` into ``<cache>/rocm-7.2.4`` and installs nothing.  The set appears at once (unpacked
beside it, then renamed), so an interrupted fetch leaves no half set that ``verify`` would pick.
``verify`` (``clang_hip.find_hip_include``) looks in that cache by itself.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

ROCM_VERSION = "7.2.4"
# the -dev packages of ROCm 7.2.4 (Debian experimental) a ported tree's includes come from
DEV_PACKAGES = (
    "libamdhip64-dev libhsa-runtime-dev libamd-comgr-dev librocm-core-dev "
    "libhipblas-dev libhipblas-common-dev libhipblaslt-dev librocblas-dev "
    "libhipsparse-dev librocsparse-dev libhipsparselt-dev "
    "libhiprand-dev librocrand-dev libhipcub-dev librocprim-dev librocthrust-dev "
    "libhipfft-dev librocfft-dev libhipsolver-dev librocsolver-dev "
    "librccl-dev libmiopen-dev librocwmma-dev rocm-device-libs-22"
).split()
# device libraries clang-19 can read (its own LLVM 22 bitcode above is too new for it)
EXTRA = ("rocm-device-libs-17/trixie",)
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
APT_SOURCES = ("/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list")


class FetchError(RuntimeError):
    """The set could not be fetched (one line, with what to do)."""


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/hipify-py`` (default ``~/.cache/hipify-py``): where verify looks."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(env.get("XDG_CACHE_HOME") or Path(home) / ".cache") / "hipify-py"


def default_dest(env: Mapping[str, str] | None = None) -> Path:
    return cache_root(env) / f"rocm-{ROCM_VERSION}"


def debian_mirror(sources: tuple[str, ...] = APT_SOURCES) -> str:
    """The Debian archive URL of the machine's own apt sources (deb822 or one-line form)."""
    for path in sources:
        try:
            text = Path(path).read_text(errors="replace")
        except OSError:
            continue
        m = re.search(r"^URIs:\s*(https?://\S+)", text, re.M) or re.search(
            r"^deb\s+(?:\[[^\]]*\]\s+)?(https?://\S+)", text, re.M
        )
        if m:
            return m.group(1).rstrip("/")
    raise FetchError("no Debian archive found in the apt sources (" + ", ".join(sources) + ")")


def selectors() -> list[str]:
    return [f"{p}/experimental" for p in DEV_PACKAGES] + list(EXTRA)


def _run(cmd: list[str], cwd: Path | None = None) -> str:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace")
    except OSError as exc:
        raise FetchError(f"cannot run {cmd[0]}: {exc.strerror} (Debian's apt and dpkg)") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise FetchError(f"{' '.join(cmd[:1] + cmd[-2:])} failed: {last}")
    return done.stdout


def fetch(
    dest: Path | None = None,
    *,
    force: bool = False,
    mirror: str | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """Download and unpack the set into ``dest`` (default: the cache verify reads); returns
    the ``usr`` prefix (``--rocm-path``).  An existing set is kept unless ``force``."""
    dest = (dest or default_dest()).absolute()
    if (dest / "usr" / "include" / "hip" / "hip_version.h").is_file() and not force:
        log(f"already there: {dest / 'usr'} (--force fetches it again)")
        return dest / "usr"
    mirror = mirror or debian_mirror()
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".fetch-", dir=dest.parent) as tmp:
        work = Path(tmp)
        for d in ("lists/partial", "cache/archives/partial", "debs"):
            (work / d).mkdir(parents=True)
        (work / "sources.list").write_text(
            f"deb [signed-by={KEYRING}] {mirror} experimental main\n"
            f"deb [signed-by={KEYRING}] {mirror} trixie main\n"
        )
        apt = [
            "apt-get",
            "-q",
            "-o", f"Dir::Etc::sourcelist={work / 'sources.list'}",
            "-o", "Dir::Etc::sourceparts=-",
            "-o", f"Dir::State::Lists={work / 'lists'}",
            "-o", f"Dir::Cache={work / 'cache'}",
            "-o", "APT::Sandbox::User=root",
            "-o", "Debug::NoLocking=1",
        ]  # fmt: skip
        log(f"reading the package lists of {mirror} (experimental, trixie) into {work}")
        _run([*apt, "update"])
        wanted = selectors()
        log(f"downloading {len(wanted)} packages: {' '.join(wanted)}")
        _run([*apt, "download", *wanted], cwd=work / "debs")
        unpacked = work / "set"
        listing = []
        total = 0
        for deb in sorted((work / "debs").glob("*.deb")):
            fields = _run(["dpkg-deb", "-f", str(deb), "Package", "Version"])
            info = dict(re.findall(r"^(\w+): (\S+)", fields, re.M))
            listing.append(f"Package: {info.get('Package')} Version: {info.get('Version')}")
            total += deb.stat().st_size
            _run(["dpkg-deb", "-x", str(deb), str(unpacked)])
        hip = next((line for line in listing if "libamdhip64-dev " in line), "")
        if f"Version: {ROCM_VERSION}" not in hip:
            raise FetchError(
                f"Debian experimental no longer has ROCm {ROCM_VERSION} ({hip or 'no HIP'}); "
                "set HIPIFY_PY_HIP_INCLUDE or --rocm-path to another ROCm 7 header set"
            )
        listing.append(f"downloaded bytes: {total}")
        (unpacked / "PACKAGES.txt").write_text("\n".join(listing) + "\n")
        log(f"downloaded {len(listing) - 1} packages, {total / 1e6:.1f} MB")
        old = work / "old"
        if dest.exists():
            dest.rename(old)
        unpacked.rename(dest)
    log(f"ROCm {ROCM_VERSION} headers: {dest / 'usr' / 'include'} (verify finds them there)")
    return dest / "usr"
