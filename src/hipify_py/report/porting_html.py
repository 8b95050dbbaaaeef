"""The porting report as one self-contained HTML file: no network, no external assets.

Built for a 1,000-file tree: the summary, the file list and the rule pages are static HTML;
each file's diff is JSON in the page and becomes a table only when its ``<details>`` opens,
so the page loads a few thousand elements whatever the size of the diffs.  Every text from
the tree (code, file names, messages) is escaped here and set with ``textContent`` in the
script; a Content-Security-Policy with a per-report nonce lets no other script run and no
request leave the page.
"""

from __future__ import annotations

import html
import json
import secrets
from collections import Counter
from pathlib import PurePath, PurePosixPath

from .porting import SEVERITIES, FileEntry, PortReport, printable, register_port_format

MAX_RISKY_ROWS = 200  # risky flag changes listed in the summary (all are counted)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _json(value: object) -> str:
    """JSON that cannot end the ``<script>`` element it sits in."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _file_data(entry: FileEntry) -> dict:
    """What the script needs to draw one file's diff: rows, findings, compiler result."""
    rows = [
        ["~", r.old, r.new, r.skipped] if r.tag == "~" else [r.tag, r.old, r.new, r.text]
        for r in entry.rows
    ]
    findings = [
        [
            f.line,
            f.column,
            f.rule,
            f.severity.value,
            f.message,
            int(f.fixed),
            f.fix.description if f.fix else "",
        ]
        for f in entry.findings
    ]
    data: dict = {"r": rows, "f": findings}
    if entry.cut:
        data["cut"] = entry.cut
    if entry.verify is not None:
        data["v"] = {
            "status": entry.verify.get("status"),
            "notes": entry.verify.get("notes") or [],
            "missing": entry.verify.get("missing_headers") or [],
            "errors": [
                [
                    (d.get("anchor") or [0, 0])[0],
                    (d.get("anchor") or [0, 0])[1],
                    d.get("message", ""),
                    (d.get("cuda") or {}).get("line", 0),
                ]
                for d in entry.verify.get("errors") or []
                if isinstance(d, dict)
            ],
        }
    if entry.message:
        data["m"] = entry.message
    return data


def _data_element(i: int, entry: FileEntry) -> str:
    """One file's data in its own element: the page parses it only when the file opens."""
    return f'<script type="application/json" id="data-{i}">{_json(_file_data(entry))}</script>'


def _keys(entry: FileEntry) -> list[str]:
    """The filter keys a file answers to: its rules, and the needs-a-human kinds it has."""
    keys = {f.rule for f in entry.findings}
    if entry.status in ("failed", "binary"):
        keys.add("failed")
    if entry.risky:
        keys.add("risky")
    if entry.verify is not None:
        status = entry.verify.get("status")
        keys.add("verify-failed" if status == "failed" else str(status))
    return sorted(keys)


def _badges(entry: FileEntry) -> str:
    out = []
    if entry.kind is not None:
        out.append(f'<span class="b build">{_e(entry.kind)}</span>')
    if entry.status in ("failed", "binary"):
        out.append('<span class="b error">not converted</span>')
    counts = Counter(f.severity.value for f in entry.open_findings)
    for sev in SEVERITIES:
        if counts[sev]:
            out.append(f'<span class="b {sev}">{counts[sev]} {sev}</span>')
    fixed = sum(f.fixed for f in entry.findings)
    if fixed:
        out.append(f'<span class="b fixed">{fixed} fixed</span>')
    if entry.risky:
        out.append(f'<span class="b warning">{len(entry.risky)} risky flag</span>')
    if entry.verify is not None:
        status = str(entry.verify.get("status"))
        cls = {"passed": "pass", "failed": "error"}.get(status, "warning")
        out.append(f'<span class="b {cls}">verify: {_e(status)}</span>')
    if entry.added or entry.removed:
        out.append(f'<span class="d">+{entry.added} −{entry.removed}</span>')
    return " ".join(out)


def _file_row(i: int, entry: FileEntry) -> str:
    worst = entry.worst or ""
    renamed = PurePosixPath(entry.out).name != PurePath(entry.path).name
    target = f' <span class="arrow">→</span> {_e(entry.out)}' if renamed else ""
    return (
        f'<details class="file" id="file-{i}" data-i="{i}" data-sev="{worst}" '
        f'data-keys="{_e(" ".join(_keys(entry)))}" data-path="{_e(entry.path)}">'
        f'<summary><span class="path">{_e(entry.path)}</span>{target} {_badges(entry)}</summary>'
        f'<div class="body"></div></details>'
    )


def _summary(report: PortReport) -> str:
    files = report.status_counts()
    open_counts = Counter(f.severity.value for f in report.findings() if not f.fixed)
    fixed = sum(f.fixed for f in report.findings())
    build = [e for e in report.files if e.kind is not None and e.rows]
    cells = [
        ("files", len(report.files)),
        ("converted", files["converted"]),
        ("unchanged", files["unchanged"]),
        ("copied (not CUDA)", files["copied"]),
        ("not converted", files["failed"] + files["binary"]),
        ("build files changed", len(build)),
        *((f"open {sev}s", open_counts[sev]) for sev in SEVERITIES),
        ("fixed by the conversion", fixed),
    ]
    if report.verify is not None:
        verdicts = report.verify_counts()
        cells += [(f"verify {k}", verdicts[k]) for k in ("passed", "failed", "not-checkable")]
    tiles = "".join(
        f'<div class="tile"><b>{value}</b><span>{_e(label)}</span></div>' for label, value in cells
    )
    return f'<section id="summary"><div class="tiles">{tiles}</div></section>'


def _needs_human(report: PortReport) -> str:
    items = report.needs_human()
    if not items:
        return '<section id="human"><h2>Needs a human</h2><p class="ok">Nothing.</p></section>'
    rows = "".join(
        f'<tr class="{sev}"><td><span class="b {sev}">{sev}</span></td>'
        f'<td><a class="key" href="#rule={_e(key)}">{_e(key)}</a></td><td>{_e(what)}</td>'
        f'<td class="n">{count}</td><td class="n">{nfiles}</td></tr>'
        for sev, key, what, count, nfiles in items
    )
    return (
        '<section id="human"><h2>Needs a human</h2><table class="list">'
        "<thead><tr><th>severity</th><th>what</th><th></th><th>count</th><th>files</th></tr>"
        f"</thead><tbody>{rows}</tbody></table></section>"
    )


def _risky(report: PortReport) -> str:
    changes = [r for e in report.files for r in e.risky]
    if not changes:
        return ""
    rows = "".join(
        f'<tr><td>{_e(r.category)}</td><td class="path">{_e(r.path)}:{r.line}</td>'
        f'<td class="code d{_e(r.tag)}">{_e(r.tag)} {_e(r.text)}</td></tr>'
        for r in changes[:MAX_RISKY_ROWS]
    )
    more = len(changes) - MAX_RISKY_ROWS
    tail = f"<p>… {more} more (filter the files by <code>risky</code>).</p>" if more > 0 else ""
    return (
        '<section id="risky"><h2>Risky build-flag changes</h2>'
        "<p>Flags that change numerics (fast-math, denormals) or the GPUs the code is built "
        "for: check each against what the project needs.</p>"
        f'<table class="list">{rows}</table>{tail}</section>'
    )


def _verify(report: PortReport) -> str:
    if report.verify is None:
        return (
            '<section id="verify"><h2>Compile check</h2><p>No verify result in this report: '
            "run <code>hipify-py report --verify</code>, or pass the output of "
            "<code>hipify-py verify OUT_DIR --from SRC_DIR --format json</code> with "
            "<code>--verify-json FILE</code>, to show each translation unit's result here."
            "</p></section>"
        )
    run = report.verify
    tc = run.get("toolchain") or {}
    what = ", ".join(
        f"{k} {_e(tc[k])}" for k in ("kind", "arch", "hip_version", "compiler") if tc.get(k)
    )
    warnings = "".join(f"<li>{_e(w)}</li>" for w in run.get("warnings") or [])
    unmatched = ""
    if report.unmatched_verify:
        names = ", ".join(_e(p) for p in report.unmatched_verify[:20])
        unmatched = f"<p>Verified files not in this tree: {names}</p>"
    summary = ", ".join(f"{_e(k)} {_e(v)}" for k, v in (run.get("summary") or {}).items())
    return (
        '<section id="verify"><h2>Compile check</h2>'
        f"<p>From <code>{_e(report.verify_source)}</code> ({_e(run.get('mode'))}; {what}): "
        f"{summary}.</p>"
        f"{'<ul>' + warnings + '</ul>' if warnings else ''}{unmatched}</section>"
    )


def _filters(report: PortReport, keys: list[str]) -> str:
    sev = "".join(f'<option value="{s}">{s} and above</option>' for s in SEVERITIES)
    rules = "".join(f'<option value="{_e(k)}">{_e(k)}</option>' for k in keys)
    return (
        '<div id="filters">'
        '<label>severity <select id="f-sev"><option value="">any</option>'
        f"{sev}</select></label> "
        f'<label>rule <select id="f-rule"><option value="">any</option>{rules}</select></label> '
        '<label>path <input id="f-q" type="search" placeholder="substring"></label> '
        '<button id="f-open" type="button" title="the first 100 files shown">open shown</button> '
        '<button id="f-close" type="button">close all</button> '
        '<span id="f-count"></span></div>'
    )


def _quiet_files(entries: list[FileEntry]) -> str:
    if not entries:
        return ""
    names = "\n".join(
        e.path + ("  (copied, not CUDA)" if e.status == "copied" else "") for e in entries
    )
    return (
        f'<details id="quiet"><summary>{len(entries)} files with nothing to review '
        f"(unchanged or copied)</summary><pre>{_e(names)}</pre></details>"
    )


def _rules(report: PortReport) -> str:
    pages = "".join(
        f'<details class="rule" id="rule-{_e(i)}"><summary>{_e(i)}</summary>'
        f'<pre class="page">{_e(page)}</pre></details>'
        for i, page in report.rule_pages().items()
    )
    return f'<section id="rules"><h2>Rule pages</h2>{pages}</section>' if pages else ""


@register_port_format("html")
def render(report: PortReport) -> str:
    shown = [e for e in report.files if e.needs_review]
    # build files first (their flags change every translation unit), then sources, by path
    shown.sort(key=lambda e: (e.kind is None, e.path))
    quiet = [e for e in report.files if not e.needs_review]
    keys = sorted({k for e in shown for k in _keys(e)})
    nonce = secrets.token_urlsafe(16)
    options = " ".join(report.options) or "defaults"
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP.format(nonce=nonce)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(report.title)}</title><style>{_CSS}</style></head>
<body><header><h1>{_e(report.title)}</h1>
<p>hipify-py {_e(report.tool_version)} · options: <code>{_e(options)}</code></p></header>
{_summary(report)}{_needs_human(report)}{_risky(report)}{_verify(report)}
<section id="files-section"><h2>Files to review ({len(shown)})</h2>{_filters(report, keys)}
<noscript><p>The diffs and the filters need JavaScript (the page's own script; nothing is
fetched).</p></noscript>
<div id="files">{"".join(_file_row(i, e) for i, e in enumerate(shown))}</div>
{_quiet_files(quiet)}</section>
{_rules(report)}
{"".join(_data_element(i, e) for i, e in enumerate(shown))}
<script nonce="{nonce}">{_JS}</script></body></html>
"""
    return printable(page)


# nothing is fetched; only the report's own script (its nonce) runs
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-{nonce}'; img-src data:"

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:0 16px;color:#1b1f24}
h1{font-size:20px;margin:12px 0 2px}h2{font-size:16px;margin:18px 0 6px}
code,pre,.code,.path{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
.tiles{display:flex;flex-wrap:wrap;gap:6px}.tile{border:1px solid #d0d7de;border-radius:6px;
padding:4px 10px;min-width:90px}.tile b{display:block;font-size:18px}.tile span{color:#57606a}
table.list{border-collapse:collapse}table.list td,table.list th{padding:2px 8px;
border-bottom:1px solid #eaeef2;text-align:left}.n{text-align:right}
.b{border-radius:10px;padding:0 7px;font-size:12px;color:#fff;background:#6e7781}
.b.error{background:#cf222e}.b.warning{background:#bf8700}.b.info{background:#0969da}
.b.fixed,.b.pass{background:#1a7f37}.b.build{background:#8250df}.d{color:#57606a;font-size:12px}
#filters{position:sticky;top:0;background:#f6f8fa;padding:6px;border:1px solid #d0d7de;
border-radius:6px;z-index:1}
details.file{border:1px solid #d0d7de;border-radius:6px;margin:4px 0}
details.file>summary{padding:4px 8px;cursor:pointer;background:#f6f8fa}
.arrow{color:#57606a}table.diff{border-collapse:collapse;width:100%;table-layout:fixed}
table.diff td{padding:0 6px;vertical-align:top}col.c-ln{width:52px}col.c-t{width:16px}
td.ln{color:#8c959f;text-align:right;user-select:none}td.code{white-space:pre-wrap;word-break:break-all}
tr.dm{background:#ffebe9}tr.dp{background:#dafbe1}tr.skip td{color:#57606a;background:#f6f8fa}
tr.find td{background:#fff8c5;white-space:normal;font-family:system-ui,sans-serif}
tr.find.error td{background:#ffebe9}tr.find.fixed td{background:#eef9f0}
tr.cc td{background:#fde2e1}.msg{padding:4px 8px}.dm,.d-{color:#82071e}.d\\+{color:#116329}
pre.page{white-space:pre-wrap;background:#f6f8fa;padding:8px;border-radius:6px}
details.rule>summary{cursor:pointer}.ok{color:#1a7f37}
"""

# The script builds nodes with textContent only: nothing from the data is parsed as HTML.
_JS = r"""
(function(){
const RANK={info:0,warning:1,error:2};
const OPEN_MAX=100;  // 'open shown' draws at most this many diffs at once
const files=Array.from(document.querySelectorAll('details.file'));
function el(tag,cls,text){const e=document.createElement(tag);if(cls)e.className=cls;
 if(text!==undefined)e.textContent=String(text);return e;}
function diffTable(){const t=el('table','diff'),cols=el('colgroup');
 for(const c of ['ln','ln','t','code'])cols.append(el('col','c-'+c));t.append(cols);return t;}
function ruleLink(rule){const a=el('a','rule-link',rule);a.href='#rule-'+rule;return a;}
function noteRow(cls,parts){const tr=el('tr',cls);const td=el('td','msg');td.colSpan=4;
 for(const p of parts){td.append(typeof p==='string'?document.createTextNode(p):p);}
 tr.append(td);return tr;}
function findingRow(f){const [line,col,rule,sev,msg,fixed,fix]=f;
 const parts=[el('span','b '+(fixed?'fixed':sev),fixed?'fixed':sev),' ',ruleLink(rule),
  ' line '+line+':'+col+' ',msg];
 if(fix)parts.push(' (fix: '+fix+')');
 return noteRow('find '+(fixed?'fixed':sev),parts);}
function compilerRow(d){const [line,col,msg,cuda]=d;
 return noteRow('cc',[el('span','b error','compiler'),' HIP line '+line+':'+col+
  (cuda?' (CUDA line '+cuda+')':'')+' ',msg]);}
function draw(det){const body=det.querySelector('.body');if(body.dataset.done)return;
 body.dataset.done='1';
 const d=JSON.parse(document.getElementById('data-'+det.dataset.i).textContent);
 const byOld=new Map(),byNew=new Map(),loose=[];
 for(const f of d.f){(f[0]>0?(byOld.get(f[0])||byOld.set(f[0],[]).get(f[0])):loose).push(f);}
 const v=d.v;if(v){for(const e of v.errors){
  if(e[0]>0){(byNew.get(e[0])||byNew.set(e[0],[]).get(e[0])).push(e);}else{loose.push(e);}}}
 if(d.m)body.append(el('p','msg','not converted: '+d.m));
 if(v){const p=el('p','msg','verify: '+v.status);
  for(const n of v.notes.concat(v.missing.map(m=>'missing header '+m)))p.append(el('div','d',n));
  body.append(p);}
 const t=diffTable();const tb=el('tbody');t.append(tb);
 const placed=new Set();
 for(const r of d.r){const tag=r[0];
  if(tag==='~'){const tr=noteRow('skip',['… '+r[3]+' unchanged lines']);tb.append(tr);continue;}
  const tr=el('tr',tag==='-'?'dm':tag==='+'?'dp':'');
  tr.append(el('td','ln',r[1]||''),el('td','ln',r[2]||''),el('td','t',tag),el('td','code',r[3]));
  tb.append(tr);
  if(tag!=='+'&&byOld.has(r[1])&&!placed.has('o'+r[1])){placed.add('o'+r[1]);
   for(const f of byOld.get(r[1]))tb.append(findingRow(f));}
  if(tag!=='-'&&byNew.has(r[2])&&!placed.has('n'+r[2])){placed.add('n'+r[2]);
   for(const e of byNew.get(r[2]))tb.append(compilerRow(e));}}
 for(const [k,fs] of byOld)if(!placed.has('o'+k))loose.push(...fs);
 for(const [k,es] of byNew)if(!placed.has('n'+k))loose.push(...es);
 if(loose.length){const lt=diffTable();body.append(lt);
  for(const x of loose)lt.append(x.length===7?findingRow(x):compilerRow(x));}
 if(d.r.length)body.append(t);else if(!loose.length&&!d.m)body.append(el('p','msg','no changes'));
 if(d.cut)body.append(el('p','msg','… '+d.cut+
  ' more diff rows not shown (hipify-py convert --dry-run has them all)'));}
for(const det of files){det.addEventListener('toggle',()=>{if(det.open)draw(det);});}
const fSev=document.getElementById('f-sev'),fRule=document.getElementById('f-rule'),
 fQ=document.getElementById('f-q'),count=document.getElementById('f-count');
function apply(){const sev=fSev.value,rule=fRule.value,q=fQ.value.toLowerCase();let n=0;
 for(const det of files){const s=det.dataset.sev;
  const ok=(!sev||(s&&RANK[s]>=RANK[sev]))&&(!rule||det.dataset.keys.split(' ').includes(rule))
   &&(!q||det.dataset.path.toLowerCase().includes(q));
  det.hidden=!ok;if(ok)n++;}
 count.textContent=n+' of '+files.length+' files shown';document.body.dataset.shown=n;}
function setOption(sel,value){if(!value)return;
 if(!Array.from(sel.options).some(o=>o.value===value))sel.append(new Option(value,value));
 sel.value=value;}
function fromLocation(){const h=location.hash.slice(1);
 if(h.startsWith('rule-')){const r=document.getElementById(h);
  if(r){r.open=true;r.scrollIntoView();}return;}
 const p=new URLSearchParams(h.includes('=')?h:location.search.slice(1));
 fSev.value=p.get('sev')||'';setOption(fRule,p.get('rule')||'');fRule.value=p.get('rule')||'';
 fQ.value=p.get('q')||'';apply();
 if(p.get('open'))for(const det of files)if(!det.hidden)det.open=true,draw(det);}
function toHash(){const p=new URLSearchParams();if(fSev.value)p.set('sev',fSev.value);
 if(fRule.value)p.set('rule',fRule.value);if(fQ.value)p.set('q',fQ.value);
 history.replaceState(null,'','#'+p.toString());apply();}
fSev.onchange=toHash;fRule.onchange=toHash;fQ.oninput=toHash;
document.getElementById('f-open').onclick=()=>{let n=0;
 for(const det of files)if(!det.hidden&&n++<OPEN_MAX)det.open=true;};
document.getElementById('f-close').onclick=()=>{for(const det of files)det.open=false;};
window.addEventListener('hashchange',()=>{fromLocation();
 if(location.hash.includes('='))document.getElementById('files-section').scrollIntoView();});
fromLocation();
document.body.dataset.ready=Math.round(performance.now());  // ms since navigation: load time
})();
"""
