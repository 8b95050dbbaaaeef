"""The porting report in a real browser (headless Chromium, Debian's `chromium` package): the
examples' report draws, filters by rule, severity and path, opens rule pages, draws diffs only
when a file is opened, and a hostile tree's names and code run nothing."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from _report import INJECTED, DevTools, Dom, hostile_tree, report
from conftest import require_tool

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WARP = {"warp_reduce/warp_reduce.cu"}
BUILD_FILES = {
    "cmake_cublas/CMakeLists.txt",
    "cmake_cublas/blas/CMakeLists.txt",
    "cmake_project/CMakeLists.txt",
    "make_project/Makefile",
    "masked_add/setup.py",
}


def browse(page: Path, profile: Path, fragment: str = "", *flags: str) -> str:
    """What Chromium prints for ``page`` (``--dump-dom`` unless ``flags`` say otherwise)."""
    chromium = require_tool("chromium", "/usr/bin/chromium")
    done = subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",  # tests may run as root
            "--disable-gpu",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *(flags or ("--dump-dom",)),
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def examples_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "examples.html"
    result = report(str(EXAMPLES), "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def _shown(dom: Dom) -> set[str]:
    """The files the page shows, relative to examples/."""
    root = f"{EXAMPLES}/"
    return {p.removeprefix(root) for p, a in dom.files().items() if "hidden" not in a}


def test_the_page_loads_and_draws_diffs_only_for_opened_files(
    examples_page: Path, tmp_path: Path
) -> None:
    closed = Dom(browse(examples_page, tmp_path))
    body = closed.find("body")[0][1]
    assert body.get("data-ready") and body["data-shown"] == "18"
    assert len(closed.files()) == 18
    assert not [e for e in closed.find("tr") if e[2] is not None]  # nothing drawn yet
    opened = Dom(browse(examples_page, tmp_path, "#open=1"))
    warp = next(p for p in opened.files() if p.endswith("warp_reduce.cu"))
    rows = [e for e in opened.find("tr") if e[2] == warp]
    findings = [e for e in rows if "find" in e[1].get("class", "").split()]
    assert len([e for e in findings if "error" in e[1]["class"]]) == 1  # HZ105
    assert len([e for e in findings if "fixed" in e[1]["class"]]) == 3
    links = [a["href"] for _, a, owner in opened.find("a", "rule-link") if owner == warp]
    assert set(links) == {"#rule-HZ105", "#rule-HZ106"}
    assert "__shfl_down_sync(0xffffffffffffffffULL, v, offset)" in opened.text_of(warp)
    for path in opened.files():  # every file drew its diff
        assert any(e[2] == path for e in opened.find("table", "diff")), path


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ("#rule=HZ105", WARP),
        ("#sev=error", WARP),
        ("#rule=risky", BUILD_FILES),
        ("#q=MAKEFILE", {"make_project/Makefile"}),
        ("#q=cmake_project&rule=risky", {"cmake_project/CMakeLists.txt"}),
        ("?rule=HZ106", WARP),  # a query string works as well as the hash (a fixed finding)
    ],
)
def test_filters_in_the_url_hide_the_other_files(
    examples_page: Path, tmp_path: Path, fragment: str, expected: set[str]
) -> None:
    dom = Dom(browse(examples_page, tmp_path, fragment))
    assert _shown(dom) == expected
    assert dom.find("body")[0][1]["data-shown"] == str(len(expected))
    assert f"{len(expected)} of 18 files shown" in [t for t, _ in dom.texts]


def test_a_rule_link_opens_its_page(examples_page: Path, tmp_path: Path) -> None:
    dom = Dom(browse(examples_page, tmp_path, "#rule-HZ105"))
    pages = {a["id"]: a for _, a, _ in dom.find("details", "rule")}
    assert "open" in pages["rule-HZ105"] and "open" not in pages["rule-HZ106"]
    assert len(_shown(dom)) == 18  # an anchor is no filter


def test_a_screenshot_of_the_report(examples_page: Path, tmp_path: Path) -> None:
    png = tmp_path / "shot.png"
    browse(
        examples_page,
        tmp_path,
        "#rule=HZ105&open=1",
        f"--screenshot={png}",
        "--window-size=1200,900",
        "--hide-scrollbars",
    )
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1200, 900)
    assert len(data) > 30_000  # a drawn page, not a blank one


def test_a_hostile_tree_runs_no_script_in_the_browser(tmp_path: Path) -> None:
    out = tmp_path / "hostile.html"
    assert report(str(hostile_tree(tmp_path)), "-o", str(out)).exit_code == 0
    dom = Dom(browse(out, tmp_path / "profile", "#open=1"))
    scripts = [a for _, a, _ in dom.find("script") if a.get("type") != "application/json"]
    assert dom.find("img") == [] and len(scripts) == 1
    (path,) = dom.files()
    assert path.endswith('x"><img src=y onerror=alert(3)>.cu')
    shown = dom.text_of(path)
    assert "</script><script>alert(1)</script>" in shown  # the code, drawn as text
    assert '"</script><script>alert(4)</script>"' in shown
    assert all(a in shown for a in INJECTED if a != "alert(3)")


# a promise of ``value()`` once ``ready()`` holds (polled: the toggle event comes in a later task)
UNTIL = (
    "const until = (ready, value) => new Promise((done, fail) => { const end = Date.now() + 10000;"
    " const poll = () => ready() ? done(value()) : Date.now() > end ? fail('timeout')"
    " : setTimeout(poll, 10); poll(); });"
)


def test_the_controls_filter_open_files_and_rule_pages(examples_page: Path, tmp_path: Path) -> None:
    """Driven as a person would: pick a rule in the list, click a file, click a rule link."""
    chromium = require_tool("chromium", "/usr/bin/chromium")
    browser = DevTools(chromium, tmp_path, examples_page.as_uri())
    try:
        ready = browser.evaluate(
            f"(() => {{ {UNTIL} return until(() => document.body.dataset.ready,"
            " () => +document.body.dataset.ready); })()"
        )
        assert isinstance(ready, int) and ready > 0
        picked = browser.evaluate(
            "(() => { const s = document.getElementById('f-rule'); s.value = 'HZ105';"
            " s.dispatchEvent(new Event('change'));"
            " return [document.getElementById('f-count').textContent, location.hash,"
            " [...document.querySelectorAll('details.file:not([hidden])')]"
            ".map(d => d.dataset.path)]; })()"
        )
        assert picked[:2] == ["1 of 18 files shown", "#rule=HZ105"]
        assert [Path(p).name for p in picked[2]] == ["warp_reduce.cu"]
        drawn = browser.evaluate(
            f"(() => {{ {UNTIL} const d = document.querySelector('details.file:not([hidden])');"
            " const before = d.querySelectorAll('tr').length; d.querySelector('summary').click();"
            " return until(() => d.querySelector('.body').dataset.done,"
            " () => [before, d.querySelectorAll('tr.find').length]); })()"
        )
        assert drawn == [0, 4]  # nothing before the click; 1 open + 3 fixed findings after
        opened = browser.evaluate(
            f"(() => {{ {UNTIL} document.querySelector('a.rule-link[href=\"#rule-HZ105\"]')"
            ".click(); const page = document.getElementById('rule-HZ105');"
            " return until(() => page.open, () => [location.hash,"
            " document.getElementById('f-count').textContent]); })()"
        )
        assert opened == ["#rule-HZ105", "1 of 18 files shown"]  # the filter stays
    finally:
        browser.close()
