"""Server-rendered HTML of the pages: inline CSS, no scripts from anywhere, all data escaped."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote, urlencode

import orjson

from .models import EpisodeSummary, Outcome, Step, Timeline

_CSS = """
:root { --ink:#1f2430; --muted:#6b7280; --line:#e5e7eb; --bg:#f7f8fa; --card:#fff;
  --ok:#15803d; --ok-bg:#dcfce7; --bad:#b91c1c; --bad-bg:#fee2e2; --warn:#c2410c;
  --warn-bg:#ffedd5; --accent:#2563eb; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  color:var(--ink); background:var(--bg); }
header.top { background:#111827; color:#fff; padding:10px 24px; display:flex; gap:16px;
  align-items:baseline; }
header.top a { color:#fff; text-decoration:none; font-weight:600; }
header.top span { color:#9ca3af; font-size:12px; }
main { max-width:1100px; margin:0 auto; padding:20px 24px 48px; }
h1 { font-size:20px; margin:4px 0 4px; word-break:break-all; }
h2 { font-size:15px; margin:28px 0 10px; text-transform:uppercase; letter-spacing:.04em;
  color:var(--muted); }
a { color:var(--accent); }
.sub { color:var(--muted); margin-bottom:16px; }
.cards { display:flex; gap:12px; flex-wrap:wrap; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px;
  padding:10px 14px; min-width:120px; }
.card .k { color:var(--muted); font-size:12px; }
.card .v { font-size:18px; font-weight:600; }
table { width:100%; border-collapse:collapse; background:var(--card);
  border:1px solid var(--line); border-radius:8px; overflow:hidden; }
th, td { text-align:left; padding:7px 10px; border-bottom:1px solid var(--line); }
th { background:#f3f4f6; font-size:12px; color:var(--muted); font-weight:600; }
tr:last-child td { border-bottom:none; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
.badge { display:inline-block; padding:1px 8px; border-radius:999px; font-size:12px;
  font-weight:600; white-space:nowrap; }
.badge.ok { color:var(--ok); background:var(--ok-bg); }
.badge.bad { color:var(--bad); background:var(--bad-bg); }
.badge.fault { color:#fff; background:var(--warn); }
.badge.muted { color:var(--muted); background:#eef0f3; }
.badge.method { color:#1e3a8a; background:#dbeafe; font-family:ui-monospace,monospace; }
form.filters { display:flex; gap:10px; align-items:end; margin:12px 0 16px; flex-wrap:wrap; }
form.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--muted);
  gap:3px; }
select, button { font:inherit; padding:5px 8px; border:1px solid #d1d5db; border-radius:6px;
  background:#fff; }
button { background:var(--accent); color:#fff; border-color:var(--accent); cursor:pointer; }
ol.steps { list-style:none; padding:0; margin:0; display:flex; flex-direction:column; gap:8px; }
details.step { background:var(--card); border:1px solid var(--line); border-radius:8px;
  border-left:4px solid #cbd5e1; }
details.step.error { border-left-color:var(--bad); }
details.step.faulted { border-left-color:var(--warn); background:#fffaf5; }
details.step > summary { cursor:pointer; padding:9px 12px; display:flex; gap:10px;
  align-items:center; flex-wrap:wrap; list-style:none; }
details.step > summary::-webkit-details-marker { display:none; }
details.step > summary::before { content:"▸"; color:var(--muted); width:10px; }
details.step[open] > summary::before { content:"▾"; }
summary .idx { color:var(--muted); font-variant-numeric:tabular-nums; min-width:28px; }
summary .path { font-family:ui-monospace,monospace; flex:1; word-break:break-all; }
summary .status { font-weight:600; font-variant-numeric:tabular-nums; }
summary .status.s2 { color:var(--ok); } summary .status.s4 { color:var(--warn); }
summary .status.s5 { color:var(--bad); }
summary .meta { color:var(--muted); font-size:12px; }
.step-body { padding:4px 14px 14px; border-top:1px solid var(--line); }
.step-body h3 { font-size:12px; color:var(--muted); margin:12px 0 6px;
  text-transform:uppercase; }
pre { background:#0f172a; color:#e2e8f0; padding:10px 12px; border-radius:6px; margin:0;
  overflow:auto; max-height:320px; font-size:12px; white-space:pre-wrap; word-break:break-all; }
.grid2 { display:grid; grid-template-columns:1fr 1fr; gap:14px; }
.bar { height:8px; background:#e5e7eb; border-radius:4px; min-width:120px; }
.bar > i { display:block; height:100%; background:var(--accent); border-radius:4px; }
ul.assertions { list-style:none; padding:0; margin:0; background:var(--card);
  border:1px solid var(--line); border-radius:8px; }
ul.assertions li { padding:8px 12px; border-bottom:1px solid var(--line); display:flex; gap:10px;
  align-items:flex-start; }
ul.assertions li:last-child { border-bottom:none; }
ul.assertions .detail { color:var(--muted); font-size:12px; }
.empty { color:var(--muted); padding:18px; background:var(--card);
  border:1px dashed var(--line); border-radius:8px; text-align:center; }
form.login { display:flex; flex-direction:column; gap:12px; max-width:420px; margin-top:16px;
  background:var(--card); border:1px solid var(--line); border-radius:8px; padding:16px; }
form.login label { display:flex; flex-direction:column; gap:4px; font-size:12px;
  color:var(--muted); }
form.login input { font:inherit; padding:6px 8px; border:1px solid #d1d5db; border-radius:6px; }
.error { color:var(--bad); background:var(--bad-bg); border-radius:6px; padding:8px 12px; }
code { font-family:ui-monospace,monospace; font-size:12px; }
"""


def _page(title: str, body: str) -> str:
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        "<header class=top><a href='/'>WorkGym telemetry</a><span>episodes, steps, faults, "
        f"rewards</span></header><main>{body}</main></body></html>"
    )


def _e(value: Any) -> str:
    return escape("" if value is None else str(value))


_PASSED = "<span class='badge ok'>✓ passed</span>"
_FAILED = "<span class='badge bad'>✗ failed</span>"


def _outcome(success: bool | None) -> str:
    if success is None:
        return "<span class='badge muted'>unfinished</span>"
    return ("<span class='badge ok'>success</span>" if success
            else "<span class='badge bad'>failure</span>")


def _reward(reward: float | None) -> str:
    return "–" if reward is None else f"{reward:.3f}"


def _duration(ms: float) -> str:
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def _time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _episode_href(episode_id: str) -> str:
    return f"/episodes/{quote(episode_id, safe='')}"


def _options(values: Iterable[tuple[str, str]], selected: str | None) -> str:
    return "".join(
        f"<option value='{_e(v)}'{' selected' if v == (selected or '') else ''}>{_e(label)}"
        "</option>" for v, label in values
    )


def index(episodes: list[EpisodeSummary], *, tasks: list[str], task: str | None,
          outcome: Outcome | None) -> str:
    task_options = _options([("", "all tasks")] + [(t, t) for t in tasks], task)
    form = (
        "<form class=filters method=get action='/'>"
        f"<label>Task<select name=task>{task_options}</select></label>"
        "<label>Outcome<select name=outcome>"
        f"{_options([('', 'any'), ('success', 'success'), ('failure', 'failure')], outcome)}"
        "</select></label><button type=submit>Filter</button></form>"
    )
    if not episodes:
        listing = "<div class=empty>No episodes match.</div>"
    else:
        rows = "".join(
            f"<tr data-episode='{_e(ep.id)}'><td><a href='{_e(_episode_href(ep.id))}'>"
            f"{_e(ep.id)}</a></td><td>{_e(ep.task or '–')}</td><td>{_outcome(ep.success)}</td>"
            f"<td class=num>{_reward(ep.reward)}</td><td class=num>{ep.steps}</td>"
            f"<td class=num>{_duration(ep.duration_ms)}</td><td>{_time(ep.started)}</td></tr>"
            for ep in episodes
        )
        listing = (
            "<table class=episodes><thead><tr><th>Episode</th><th>Task</th><th>Outcome</th>"
            "<th class=num>Reward</th><th class=num>Steps</th><th class=num>Duration</th>"
            f"<th>Started</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    filters = {k: v for k, v in (("task", task), ("outcome", outcome)) if v}
    api = "/v1/episodes" + (f"?{urlencode(filters)}" if filters else "")
    return _page("Episodes · WorkGym telemetry", (
        f"<h1>Recent episodes</h1><div class=sub>{len(episodes)} shown · "
        f"<a href='{_e(api)}'>JSON</a></div>{form}{listing}"
    ))


def _pretty(text: str | None) -> str:
    """The body, indented when it is JSON, escaped."""
    if not text:
        return "<div class=empty>(empty)</div>"
    try:
        shown = orjson.dumps(orjson.loads(text), option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONDecodeError:
        shown = text
    return f"<pre>{escape(shown)}</pre>"


def _step(step: Step) -> str:
    classes = ["step"]
    if step.faults:
        classes.append("faulted")
    if step.status is not None and step.status >= 500:
        classes.append("error")
    path = (step.path or "") + (f"?{step.query}" if step.query else "")
    status = f"<span class='status s{str(step.status)[0]}'>{step.status}</span>" if step.status \
        else "<span class='status'>–</span>"
    faults = "".join(f"<span class='badge fault' title='fault injected'>⚠ {_e(f)}</span>"
                     for f in step.faults)
    rows = len(step.changes)
    changed = f"{rows} row{'s' if rows != 1 else ''} changed" if rows else "no changes"
    if step.changes:
        changes = "<table class=changes><thead><tr><th>Table</th><th>Op</th><th>Id</th></tr>" \
            "</thead><tbody>" + "".join(
                f"<tr><td>{_e(c.table)}</td><td>{_e(c.op)}</td><td>{_e(c.id)}</td></tr>"
                for c in step.changes) + "</tbody></table>"
    else:
        changes = "<div class=empty>No rows changed.</div>"
    return (
        f"<li><details class='{' '.join(classes)}' data-step='{step.index}'><summary>"
        f"<span class=idx>#{step.index}</span><span class='badge method'>{_e(step.method)}</span>"
        f"<span class=path>{_e(step.app and f'{step.app} ')}{_e(path)}</span>{status}{faults}"
        f"<span class=meta>{_duration(step.duration_ms)} · {changed}</span></summary>"
        "<div class=step-body><div class=grid2>"
        f"<div><h3>Request</h3>{_pretty(step.request_body)}</div>"
        f"<div><h3>Response</h3>{_pretty(step.response_body)}</div></div>"
        f"<h3>Rows changed</h3>{changes}</div></details></li>"
    )


def episode(timeline: Timeline, *, link: dict[str, str] | None = None) -> str:
    """The episode's page; ``link`` (the query of the signed link it was opened by) goes on
    its JSON link."""
    faulted = sum(1 for s in timeline.steps if s.faults)
    cards = [("Outcome", _outcome(timeline.success)), ("Reward", _reward(timeline.reward)),
             ("Steps", str(len(timeline.steps))), ("Faulted steps", str(faulted)),
             ("Duration", _duration(timeline.duration_ms))]
    api = f"/v1/episodes/{quote(timeline.episode_id, safe='')}/timeline"
    if link is not None:
        api += f"?{urlencode(link)}"
    head = (
        f"<h1>Episode {_e(timeline.episode_id)}</h1><div class=sub>task "
        f"<b>{_e(timeline.task or '–')}</b> · seed {_e(timeline.seed)}"
        f" · started {_time(timeline.started)} · <a href='{_e(api)}'>JSON</a></div>"
        "<div class=cards>"
        + "".join(f"<div class=card><div class=k>{k}</div><div class=v>{v}</div></div>"
                  for k, v in cards)
        + "</div>"
    )
    steps = ("<ol class=steps>" + "".join(_step(s) for s in timeline.steps) + "</ol>"
             if timeline.steps else "<div class=empty>No steps recorded.</div>")
    return _page(f"{timeline.episode_id} · WorkGym telemetry",
                 f"{head}<h2>Timeline</h2>{steps}{_reward_breakdown(timeline)}")


def _reward_breakdown(timeline: Timeline) -> str:
    if not timeline.finished:
        return "<h2>Reward</h2><div class=empty>The episode is not finished.</div>"
    signals = "".join(
        f"<tr><td>{_e(name)}</td><td class=num>{value:.3f}</td><td><div class=bar>"
        f"<i style='width:{max(0.0, min(value, 1.0)) * 100:.0f}%'></i></div></td></tr>"
        for name, value in timeline.signals.items()
    )
    signal_table = (
        "<table class=signals><thead><tr><th>Signal</th><th class=num>Value</th><th></th>"
        f"</tr></thead><tbody>{signals}</tbody></table>" if signals
        else "<div class=empty>No signals reported.</div>"
    )
    items = "".join(
        f"<li class='{'passed' if a.passed else 'failed'}'>"
        f"{_PASSED if a.passed else _FAILED}"
        f"<div><div class=name>{_e(a.name)}</div>"
        f"<div class=detail>{_e(a.detail)}</div></div></li>"
        for a in timeline.assertions
    )
    assertions = (f"<ul class=assertions>{items}</ul>" if items
                  else "<div class=empty>No assertions reported.</div>")
    return (f"<h2>Reward {_reward(timeline.reward)} {_outcome(timeline.success)}</h2>"
            f"<div class=grid2><div>{signal_table}</div><div>{assertions}</div></div>")


def login(next_path: str, message: str | None = None) -> str:
    """The form asking for the API key; it posts to ``/login``, which goes on to ``next``."""
    error = f"<div class=error role=alert>{_e(message)}</div>" if message else ""
    return _page("Log in · WorkGym telemetry", (
        "<h1>Log in</h1><div class=sub>The episodes are the operator's: enter WorkGym's API "
        "key (<code>WORKGYM_API_KEY</code>, or the <code>api-key</code> file in WorkGym's "
        "config directory, <code>~/.config/workgym</code> by default).</div>"
        f"<form class=login method=post action='/login'>{error}"
        "<label>API key<input type=password name=api_key autocomplete=current-password "
        "required autofocus></label>"
        f"<input type=hidden name=next value='{_e(next_path)}'>"
        "<button type=submit>Log in</button></form>"
    ))


def unknown_episode(episode_id: str) -> str:
    """The 404 page of an episode the store holds nothing of."""
    return _page("Episode not found · WorkGym telemetry", (
        f"<h1>No episode {_e(episode_id)}</h1><div class=sub>The store holds no spans of it: "
        "a mistyped id, an episode run without tracing (<code>OTEL_EXPORTER_OTLP_ENDPOINT"
        "</code> unset), or one whose spans have not arrived yet.</div>"
        "<p><a href='/'>Recent episodes</a></p>"
    ))
