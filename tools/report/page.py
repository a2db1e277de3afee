"""The session report as one self-contained HTML page: inline CSS, no script, no link to anything outside it.

Every text that comes from the session (the request, file names, what the agent sent, refusal messages, code)
goes through `html.escape`; nothing is inserted as markup. Sections carry stable ids (`summary`, `timeline`,
`refusals`, `tasks`, `checks`, `files`, `valves`, `caught`, `sources`) and rows carry `data-*` attributes, so
tests and readers can find facts by structure. Evidence links point at excerpts inside the page (`#ex-N`).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from code_intel.report.facts import CheckRunFact, Excerpt, SessionFacts, format_seconds, seconds_between

MAX_SENT_CHARS = 6_000  # what the agent sent, as shown for one refusal

_CSS = """
:root{--fg:#1d232b;--muted:#5d6875;--line:#d8dde3;--bg:#fff;--soft:#f4f6f8;--ok:#1f7a3f;--bad:#b42318;--warn:#a15c00;
--accent:#2457a6}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);
background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:24px 28px 60px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:30px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:14px;margin:14px 0 6px}
.muted{color:var(--muted)}.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{text-align:left;vertical-align:top;padding:5px 8px;
border-bottom:1px solid var(--line)}th{background:var(--soft);font-weight:600}
code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
pre{background:var(--soft);padding:8px 10px;overflow-x:auto;margin:4px 0;white-space:pre-wrap;word-break:break-word}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:var(--soft)}
.badge.ok{background:#e3f4e8}.badge.bad{background:#fde8e6}.badge.warn{background:#fff1db}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:10px 0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
.bar{display:flex;height:18px;border-radius:4px;overflow:hidden;margin:10px 0 4px;background:var(--soft)}
.bar span{display:block;min-width:2px;border-right:1px solid #fff}
.task{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:10px 0}
.excerpt{margin:8px 0 14px}.excerpt figcaption{font-size:12.5px;color:var(--muted)}
.excerpt .hit{background:#fff4c2;display:block}.ln{color:var(--muted);user-select:none;display:inline-block;width:4ch;
text-align:right;margin-right:1ch}
details>summary{cursor:pointer;color:var(--accent)}
td.num{white-space:nowrap}
footer{margin-top:40px;font-size:12.5px;color:var(--muted)}
"""
_PHASE_COLOURS = {"BRANCH_INTERVENTION": "#9aa5b1", "DOCUMENT_RESEARCH": "#7fa7d9", "QUERY_FRAME": "#5b8bd0",
                  "EXPLORATION": "#3d6fc0", "Q1": "#b9c7dc", "SEMANTIC": "#6f95c9", "Q2": "#b9c7dc",
                  "VERIFICATION": "#4f7fbf", "Q3": "#b9c7dc", "IMPACT_ANALYSIS": "#365f9e", "READY": "#3c9a5f",
                  "POST_IMPL_VERIFY": "#d08b2b", "VERIFY_INTERVENTION": "#c2452d", "PRE_COMMIT": "#7a5bb5",
                  "QUALITY_REVIEW": "#9b6cc4", "MERGE": "#2d8a8a", "SESSION_COMPLETE": "#5d6875"}


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _badge(text: str, kind: str = "") -> str:
    return f'<span class="badge {kind}">{_e(text)}</span>'


def _verdict(passed: bool | None) -> str:
    if passed is None:
        return _badge("not judged", "warn")
    return _badge("passed", "ok") if passed else _badge("failed", "bad")


def render(facts: SessionFacts) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        # no network: the page may load nothing, whatever a future edit adds
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
        "img-src data:\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>code-intel session {_e(facts.session_id)}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        _summary(facts), _timeline(facts), _refusals(facts), _tasks(facts), _checks(facts), _files(facts),
        _valves(facts), _caught(facts), _sources(facts),
        "</main></body></html>",
    ]
    return "\n".join(parts)


# ------------------------------------------------------------------ sections
def _summary(f: SessionFacts) -> str:
    status_kind = {"complete": "ok", "running": "", "interrupted": "warn", "discarded": "bad"}.get(f.status, "warn")
    total = format_seconds(_total_seconds(f))
    rows = [("session", f"<code>{_e(f.session_id)}</code>"), ("status", _badge(f.status, status_kind)),
            ("intent", _e(f.intent) or "?"), ("flags", _e(" ".join(f.flags)) or '<span class="muted">none</span>'),
            ("phase", f"{_e(f.phase)} (step {_e(f.step)})"), ("started", _e(f.started)),
            ("ended", _e(f.ended) if f.ended else '<span class="muted">not ended</span>'), ("duration", _e(total)),
            ("project", f"<code>{_e(f.root)}</code>")]
    facts = "".join(f'<dt>{_e(k)}</dt><dd data-fact="{_e(k)}">{v}</dd>' for k, v in rows)
    return (f'<section id="summary"><h1>Session report</h1>'
            f'<p class="muted">What code-intel recorded of one session: the phases, what the server refused, the tasks '
            f'and their evidence, the checks it ran, the commit and the merge.</p>'
            f'<h3>Request</h3><pre data-fact="query">{_e(f.query)}</pre><dl class="facts">{facts}</dl></section>')


def _total_seconds(f: SessionFacts) -> float | None:
    end = f.ended or (f.visits[-1].left or f.visits[-1].entered if f.visits else None)
    return seconds_between(f.started, end)


def _timeline(f: SessionFacts) -> str:
    timed = [(v, v.seconds) for v in f.visits if v.phase != "SESSION_COMPLETE"]
    total = sum(s for _, s in timed if s) or 0.0
    bar = "".join(
        f'<span title="{_e(v.phase)} step {v.step}: {_e(format_seconds(s))}" '
        f'style="width:{max(0.4, 100 * (s or 0) / total):.2f}%;background:{_PHASE_COLOURS.get(v.phase, "#888")}"></span>'
        for v, s in timed) if total else ""
    rows = []
    for index, visit in enumerate(f.visits, 1):
        left = "now" if visit.left is None and visit.phase != "SESSION_COMPLETE" and f.status in ("running", "interrupted") else ""
        duration = format_seconds(visit.seconds) if visit.seconds is not None else (left or "")
        refused = f'<span class="bad">{visit.refusals}</span>' if visit.refusals else "0"
        rows.append(f'<tr class="visit" data-phase="{_e(visit.phase)}" data-step="{visit.step}" '
                    f'data-refusals="{visit.refusals}"><td>{index}</td><td>{visit.step}</td><td>{_e(visit.phase)}</td>'
                    f'<td class="num" title="{_e(visit.entered)}">{_e(_offset(f, visit.entered))}</td>'
                    f'<td class="num">{_e(duration)}</td><td>{refused}</td>'
                    f'<td>{_e(visit.next_phase or "")}</td><td>{_e(visit.note)}</td></tr>')
    skips = "".join(f'<tr class="skip" data-phase="{_e(s.phase)}" data-step="{s.step}"><td>{s.step}</td>'
                    f'<td>{_e(s.phase)}</td><td>{_e(s.reason)}</td></tr>' for s in f.skips)
    skipped = (f'<h3>Steps not run</h3><table><thead><tr><th>step</th><th>phase</th><th>why</th></tr></thead>'
               f'<tbody>{skips}</tbody></table>' if skips else '<p class="muted">Every step of the route ran.</p>')
    return (f'<section id="timeline"><h2>Timeline</h2><div class="bar" role="img" aria-label="time per phase">{bar}</div>'
            f'<table><thead><tr><th>#</th><th>step</th><th>phase</th><th>entered at</th><th>time</th><th>refused</th>'
            f'<th>then</th><th>note</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{skipped}</section>')


def _offset(f: SessionFacts, moment: str | None) -> str:
    """A time as its distance from the session's start (the full time is the cell's title)."""
    seconds = seconds_between(f.started, moment)
    return "?" if seconds is None else "+" + format_seconds(seconds) if seconds else "start"


def _sent(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    if len(text) > MAX_SENT_CHARS:
        text = text[:MAX_SENT_CHARS] + f"\n... ({len(text) - MAX_SENT_CHARS:,} more characters not shown)"
    return text


def _refusals(f: SessionFacts) -> str:
    if not f.refusals:
        return '<section id="refusals"><h2>Refusals</h2><p class="muted">The server refused nothing.</p></section>'
    items = []
    for n, r in enumerate(f.refusals, 1):
        if r.sent is not None:
            sent = f'<details><summary>what the agent sent</summary><pre class="sent">{_e(_sent(r.sent))}</pre></details>'
        elif r.sent_fields:
            sent = f'<p class="muted">fields sent: <code>{_e(", ".join(r.sent_fields))}</code> (contents not recorded)</p>'
        else:
            sent = ""
        hint = f'<p><b>what to send instead:</b> {_e(r.hint)}</p>' if r.hint else ""
        changes = r.details.get("unexpected_changes") or r.details.get("changes")
        if isinstance(changes, list) and changes:
            listed = "".join(f'<li class="change"><code>{_e(c.get("path"))}</code>: {_e(c.get("change"))}</li>'
                             if isinstance(c, dict) else f'<li class="change">{_e(c)}</li>' for c in changes)
            hint += f'<p>changes the server found:</p><ul>{listed}</ul>'
        items.append(f'<div class="refusal task" data-error="{_e(r.error)}" data-phase="{_e(r.phase)}" '
                     f'data-step="{_e(r.step)}"><b>#{n}</b> {_badge(r.error, "bad")} at {_e(r.phase)} '
                     f'(step {_e(r.step)}) <span class="muted">{_e(r.ts)}</span>'
                     f'<p class="message">{_e(r.message)}</p>{hint}{sent}</div>')
    return f'<section id="refusals"><h2>Refusals ({len(f.refusals)})</h2>{"".join(items)}</section>'


def _tasks(f: SessionFacts) -> str:
    if not f.tasks:
        return '<section id="tasks"><h2>Tasks</h2><p class="muted">No task list (this session did not plan).</p></section>'
    anchors: dict[str, str] = {}
    blocks = []
    for task in f.tasks:
        rows = []
        for item in task.get("checklist") or []:
            status = str(item.get("status"))
            if status == "done" and item.get("evidence"):
                ref = str(item["evidence"])
                anchor = anchors.setdefault(ref, f"ex-{len(anchors) + 1}")
                detail = f'<a class="evidence" href="#{anchor}">{_e(ref)}</a>'
            elif status == "skipped":
                detail = f'<span class="skip-reason">{_e(item.get("reason"))}</span>'
            else:
                detail = '<span class="muted">-</span>'
            kind = {"done": "ok", "skipped": "warn"}.get(status, "")
            rows.append(f'<tr class="item" data-status="{_e(status)}"><td>{_e(item.get("item"))}</td>'
                        f'<td>{_badge(status, kind)}</td><td>{detail}</td></tr>')
        failures = int(task.get("failure_count") or 0)
        extra = f' <span class="bad">failed verification {failures}x</span>' if failures else ""
        revert = (f'<p class="muted">last revert: {_e(task.get("revert_reason"))}</p>'
                  if task.get("revert_reason") else "")
        blocks.append(f'<div class="task" data-task="{_e(task.get("id"))}" data-status="{_e(task.get("status"))}">'
                      f'<b>{_e(task.get("id"))}</b> {_badge(str(task.get("status")), "ok" if task.get("status") == "completed" else "")}'
                      f'{extra}<p>{_e(task.get("description"))}</p>{revert}'
                      f'<table><thead><tr><th>checklist item</th><th>status</th><th>evidence or reason</th></tr></thead>'
                      f'<tbody>{"".join(rows)}</tbody></table></div>')
    figures = [_excerpt(anchor, f.excerpts.get(ref)) for ref, anchor in anchors.items()]
    code = f'<h3>Evidence</h3>{"".join(figures)}' if figures else ""
    done = sum(1 for t in f.tasks if t.get("status") == "completed")
    return f'<section id="tasks"><h2>Tasks ({done}/{len(f.tasks)} completed)</h2>{"".join(blocks)}{code}</section>'


def _excerpt(anchor: str, excerpt: Excerpt | None) -> str:
    if excerpt is None:
        return ""
    if excerpt.problem or not excerpt.lines:
        body = f'<p class="muted">{_e(excerpt.problem or "no text")}</p>'
    else:
        lines = "".join(
            f'<span class="{"hit" if excerpt.start <= n <= excerpt.end else "ctx"}"><span class="ln">{n}</span>'
            f'{_e(text)}\n</span>' for n, text in excerpt.lines)
        body = f"<pre><code>{lines}</code></pre>"
    source = f" ({_e(excerpt.source)})" if excerpt.source else ""
    return (f'<figure class="excerpt" id="{anchor}" data-ref="{_e(excerpt.ref)}" data-source="{_e(excerpt.source)}">'
            f'<figcaption><code>{_e(excerpt.ref)}</code>{source}</figcaption>{body}</figure>')


def _check_row(run: CheckRunFact) -> str:
    commands = []
    for c in run.commands:
        failing = ", ".join(map(str, c.get("failing_tests") or []))
        commands.append(f'<tr class="command" data-verdict="{_e(c.get("verdict"))}"><td>{_e(c.get("name"))}</td>'
                        f'<td><code>{_e(c.get("command"))}</code></td><td>{_e(c.get("verdict"))}</td>'
                        f'<td>{_e(format_seconds(c.get("duration_s")))}</td><td class="failing">{_e(failing)}</td></tr>')
    table = (f'<table><thead><tr><th>command</th><th>runs</th><th>verdict</th><th>time</th><th>failing tests</th></tr>'
             f'</thead><tbody>{"".join(commands)}</tbody></table>' if commands else "")
    failing = (f'<p>failing tests: <code class="failing-tests">{_e(", ".join(run.failing_tests))}</code></p>'
               if run.failing_tests else "")
    return (f'<div class="check task" data-where="{_e(run.where)}" data-passed="{_e(run.passed)}">'
            f'{_verdict(run.passed)} <b>{_e(run.where)}</b> <span class="muted">{_e(run.ts)} · '
            f'{_e(format_seconds(run.duration_s))}</span><p>{_e(run.summary)}</p>{failing}{table}</div>')


def _checks(f: SessionFacts) -> str:
    if not f.checks:
        return ('<section id="checks"><h2>Server-run checks</h2><p class="muted">The server ran no checks in this '
                'session (none configured, or the session did not reach verification).</p></section>')
    return f'<section id="checks"><h2>Server-run checks ({len(f.checks)})</h2>{"".join(map(_check_row, f.checks))}</section>'


def _file_list(files: list[str], cls: str) -> str:
    if not files:
        return '<span class="muted">none</span>'
    return "".join(f'<code class="{cls}">{_e(x)}</code> ' for x in files)


def _files(f: SessionFacts) -> str:
    commits = []
    for c in f.commits:
        if not c.get("committed"):
            commits.append(f'<p class="commit muted" data-commit="">no commit: {_e(c.get("note"))}</p>')
            continue
        changes = c.get("changes") or []
        rows = "".join(f'<tr class="change"><td><code>{_e(ch.file)}</code></td><td class="ok">+{_e(ch.added)}</td>'
                       f'<td class="bad">-{_e(ch.removed)}</td></tr>' for ch in changes)
        diff = (f'<table><thead><tr><th>file</th><th>added</th><th>removed</th></tr></thead><tbody>{rows}</tbody></table>'
                if rows else f'<p>{_file_list([str(x) for x in c.get("committed_files") or []], "committed")}</p>')
        commits.append(f'<div class="commit" data-commit="{_e(c.get("commit"))}"><b>commit</b> '
                       f'<code>{_e(str(c.get("commit"))[:12])}</code> on <code>{_e(c.get("branch"))}</code>'
                       f'{": " + _e(c.get("subject")) if c.get("subject") else ""}{diff}</div>')
    merge = ""
    if f.merge is not None:
        m = f.merge
        if m.get("merged"):
            merge = (f'<p class="merge" data-merged="true"><b>merge</b> {_e(m.get("kind"))} into '
                     f'<code>{_e(m.get("base_branch"))}</code> at <code>{_e(str(m.get("commit") or "")[:12])}</code>'
                     f'{"; deleted " + _e(m.get("deleted_branch")) if m.get("deleted_branch") else ""}</p>')
        else:
            merge = f'<p class="merge" data-merged="false"><b>not merged</b>: {_e(m.get("note"))}</p>'
    body = (f'<dl class="facts"><dt>reviewed</dt><dd data-fact="reviewed">{_file_list(f.reviewed, "reviewed")}</dd>'
            f'<dt>discarded</dt><dd data-fact="discarded">{_file_list(f.discarded, "discarded")}</dd></dl>'
            f'{"".join(commits) or "<p class=muted>No commit (this session did not reach PRE_COMMIT).</p>"}{merge}')
    return f'<section id="files"><h2>Files, commit and merge</h2>{body}</section>'


def _valves(f: SessionFacts) -> str:
    names = {"verification_failure_count": "failed verifications", "intervention_count": "interventions",
             "quality_revert_count": "quality reverts", "compaction_count": "compactions"}
    rows = "".join(f'<tr class="counter" data-counter="{_e(k)}" data-value="{_e(v)}"><td>{_e(names.get(k, k))}</td>'
                   f'<td>{_e(v)}</td></tr>' for k, v in f.counters.items())
    events = "".join(f'<li class="compaction">{_e(c.get("ts"))}: compaction_count {_e(c.get("from"))} → '
                     f'{_e(c.get("to"))} at {_e(c.get("phase"))} (step {_e(c.get("step"))}); the summaries were sent '
                     f'again</li>' for c in f.compactions)
    events += "".join(f'<li class="resumed">{_e(r.get("ts"))}: resumed from the checkpoint at {_e(r.get("phase"))} '
                      f'(step {_e(r.get("step"))}){"; repaired: " + _e("; ".join(map(str, r.get("repaired") or []))) if r.get("repaired") else ""}'
                      f'</li>' for r in f.resumes)
    forced = (f'<p class="forced bad">Forced completion: the quality review limit moved the session on with these '
              f'issues open: {_e("; ".join(f.forced))}</p>' if f.forced else "")
    return (f'<section id="valves"><h2>Safety valves</h2><table><tbody>{rows}</tbody></table>{forced}'
            f'{"<ul>" + events + "</ul>" if events else "<p class=muted>No compaction and no restart.</p>"}</section>')


def _caught(f: SessionFacts) -> str:
    labels = {"pre_ready_changes": "files changed before READY (writing was not allowed yet)",
              "test_edits": "tests the change removed, skipped, focused or rewrote",
              "writes_outside_rules": "files written without the write rules allowing them"}
    if not f.caught:
        return ('<section id="caught"><h2>What the outcome checks caught</h2><p class="muted">Nothing: no write '
                'outside the rules, no file changed before READY, no test edit.</p></section>')
    rows = "".join(f'<tr class="caught" data-what="{_e(c["what"])}"><td>{_e(labels.get(c["what"], c["what"]))}</td>'
                   f'<td>{_e(c["detail"])}</td></tr>' for c in f.caught)
    return (f'<section id="caught"><h2>What the outcome checks caught ({len(f.caught)})</h2><table><tbody>{rows}'
            f'</tbody></table></section>')


def _sources(f: SessionFacts) -> str:
    notes = "".join(f"<li>{_e(n)}</li>" for n in f.notes)
    return (f'<footer id="sources">Made by <code>code-intel report</code> from: {_e(", ".join(f.sources) or "nothing")}.'
            f'{"<ul>" + notes + "</ul>" if notes else ""}</footer>')
