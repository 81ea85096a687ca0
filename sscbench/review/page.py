"""The annotation page: one static HTML document with plain JavaScript, no build step.

Kept as a Python string so that it ships inside the package without package-data rules.
All run content is inserted with ``textContent`` (never ``innerHTML``): trajectories hold
model and tool output, which must not be able to script the reviewer's page; the
Content-Security-Policy (:data:`CSP`) allows this one script only, by its hash, so an
injected ``<script>`` or ``onerror=`` would not run even if it reached the DOM. The page
holds no data: it reads the reviewer's token from the URL fragment and sends it with
every request. Element ids are stable because the browser test drives the page.
"""

import base64
import hashlib

SCRIPT = """
"use strict";
const $ = (id) => document.getElementById(id);
const EVENTS = ["t_e", "t_s", "t_u"];
let done = new Set();
let calibration = new Set();

function say(text, ok) {
  $("message").textContent = text;
  $("message").className = ok ? "ok" : "err";
}

function syncSteps() {
  for (const e of EVENTS) {
    $(e + "-step").disabled = $(e + "-status").value !== "found";
  }
}

function cell(row, text, cls) {
  const td = document.createElement("td");
  if (cls) td.className = cls;
  const pre = document.createElement("pre");
  pre.textContent = text;
  td.appendChild(pre);
  row.appendChild(td);
  return td;
}

function describe(s) {
  if (s.kind === "tool_call" || s.kind === "harness_tool_call") {
    const who = s.kind === "tool_call" ? "tool call" : "harness tool call (not the agent's)";
    return [s.name + "(" + JSON.stringify(s.arguments) + ")", who];
  }
  if (s.kind === "system_notice") return [s.content, "system notice to the agent"];
  if (s.kind === "tool_observation") {
    let text = s.content;
    try { text = JSON.stringify(JSON.parse(s.content), null, 1); } catch (err) { /* text */ }
    return [text, (s.error ? "tool error" : "tool result") + " (call " + s.call_step + ")"];
  }
  return [s.content, s.kind === "user_message" ? "user" : "agent → user"];
}

function showPacket(p) {
  $("kind").textContent = p.calibration
    ? "Calibration trajectory (practice; not counted in agreement or the reference)"
    : "Review trajectory";
  $("kind").className = p.calibration ? "calibration" : "";
  $("contract-text").textContent = JSON.stringify(p.contract, null, 1);
  const table = $("steps");
  table.replaceChildren();
  for (const s of p.steps) {
    const row = document.createElement("tr");
    row.id = "step-" + s.step;
    const [text, kind] = describe(s);
    const n = cell(row, String(s.step), "n");
    n.addEventListener("click", () => {
      const e = $("target").value;
      $(e + "-status").value = "found";
      $(e + "-step").value = String(s.step);
      syncSteps();
    });
    cell(row, kind, "k");
    cell(row, text, "");
    table.appendChild(row);
  }
}

function fill(label) {
  for (const e of EVENTS) {
    $(e + "-status").value = label ? label[e].status : "found";
    $(e + "-step").value = label && label[e].step !== null ? String(label[e].step) : "";
  }
  $("adopted").value = label ? label.adopted : "no";
  $("note").value = label ? label.note : "";
  syncSteps();
}

function token() { return $("token").value.trim(); }

async function call(url, options) {
  const opts = options || {};
  const headers = Object.assign({"x-review-token": token()}, opts.headers || {});
  const r = await fetch(url, Object.assign({}, opts, {headers: headers}));
  let data = null;
  try { data = await r.json(); } catch (err) { data = {error: r.statusText}; }
  if (!r.ok) throw new Error((data && data.error) || r.statusText);
  return data;
}

async function openPacket() {
  const pid = $("packet").value;
  if (!pid) return;
  say("loading " + pid, true);
  showPacket(await call("/api/packets/" + encodeURIComponent(pid)));
  const own = await call("/api/labels/" + encodeURIComponent(pid));
  fill(own.label);
  say(own.label ? "showing your last saved label" : "not labelled yet", true);
}

function progress() {
  const all = Array.from($("packet").options).map((o) => o.value);
  const main = all.filter((p) => !calibration.has(p));
  const cal = all.filter((p) => calibration.has(p));
  let text = main.filter((p) => done.has(p)).length + " of " + main.length +
    " packets labelled";
  if (cal.length) {
    text += "; calibration " + cal.filter((p) => done.has(p)).length + " of " + cal.length;
  }
  $("progress").textContent = text;
}

function optionText(p) {
  return (done.has(p.packet_id) ? "✓ " : "· ") + (p.calibration ? "calibration " : "") +
    p.packet_id + " (" + p.operator + ")";
}

async function loadPackets() {
  if (!token()) { say("paste the token from your review URL first", false); return; }
  try {
    const me = await call("/api/me");
    $("who").textContent = "signed in as " + me.role + " " + me.reviewer;
    const data = await call("/api/packets");
    done = new Set(data.packets.filter((p) => p.labelled).map((p) => p.packet_id));
    calibration = new Set(data.packets.filter((p) => p.calibration).map((p) => p.packet_id));
    const select = $("packet");
    select.replaceChildren();
    for (const p of data.packets) {
      const o = document.createElement("option");
      o.value = p.packet_id;
      o.textContent = optionText(p);
      select.appendChild(o);
    }
    progress();
    await openPacket();
  } catch (err) { say(String(err), false); }
}

function mark(e) {
  const status = $(e + "-status").value;
  const raw = $(e + "-step").value;
  return {status: status, step: status === "found" && raw !== "" ? Number(raw) : null};
}

async function save() {
  const body = {
    packet_id: $("packet").value,
    t_e: mark("t_e"), t_s: mark("t_s"), t_u: mark("t_u"),
    adopted: $("adopted").value,
    note: $("note").value,
  };
  try {
    await call("/api/labels", {method: "POST",
      headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
  } catch (err) { say("not saved: " + err.message, false); return; }
  done.add(body.packet_id);
  const option = $("packet").selectedOptions[0];
  option.textContent = "✓ " + option.textContent.slice(2);
  progress();
  say("saved " + body.packet_id, true);
}

const fragment = new URLSearchParams(window.location.hash.slice(1));
if (fragment.get("token")) $("token").value = fragment.get("token");
$("load").addEventListener("click", loadPackets);
$("packet").addEventListener("change", () => openPacket().catch((err) => say(String(err), false)));
$("save").addEventListener("click", save);
for (const e of EVENTS) $(e + "-status").addEventListener("change", syncSteps);
syncSteps();
if (token()) loadPackets();
else say("paste the token from your review URL, then Load packets", false);
"""

HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>SSCBench review</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0; display: flex; height: 100vh; }
#side { width: 360px; padding: 12px; border-right: 1px solid #ccc; overflow-y: auto; }
#main { flex: 1; padding: 12px; overflow-y: auto; }
#steps { border-collapse: collapse; width: 100%; }
#steps td { border-top: 1px solid #eee; padding: 4px 6px; vertical-align: top; }
#steps td.n { font-weight: bold; width: 3em; text-align: right; cursor: pointer; }
#steps td.k { width: 11em; color: #555; }
#steps tr:hover { background: #f5f5ff; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font-size: 12px; }
fieldset { margin: 8px 0; }
label { display: block; margin: 3px 0; }
.ok { color: #070; } .err { color: #b00; } .small { font-size: 12px; color: #555; }
#kind { font-weight: bold; } #kind.calibration { color: #8a5a00; }
#contract { background: #fafafa; border: 1px solid #ddd; padding: 6px; max-height: 30vh;
  overflow-y: auto; }
</style>
</head>
<body>
<div id="side">
  <h3>SSCBench review</h3>
  <label>Token <input id="token" type="password" size="24" autocomplete="off"
    placeholder="from your review URL"></label>
  <button id="load">Load packets</button>
  <p id="who"></p>
  <label>Packet <select id="packet"></select></label>
  <p id="progress"></p>
  <p>Click a step number to put it in the event selected here:
    <select id="target"><option value="t_e">T_E</option><option value="t_s">T_S</option>
    <option value="t_u">T_U</option></select></p>
  <fieldset><legend>T_E: valid refutation complete in the history</legend>
    <select id="t_e-status"><option value="found">found at step</option>
    <option value="never">never (∞)</option><option value="undecidable">undecidable</option>
    </select> <input id="t_e-step" type="number" min="0" size="4"></fieldset>
  <fieldset><legend>T_S: first dependent use after the fault</legend>
    <select id="t_s-status"><option value="found">found at step</option>
    <option value="none">no dependent use</option><option value="undecidable">undecidable</option>
    </select> <input id="t_s-step" type="number" min="0" size="4"></fieldset>
  <fieldset><legend>T_U: first erroneous reliance</legend>
    <select id="t_u-status"><option value="found">found at step</option>
    <option value="never">never</option><option value="undecidable">undecidable</option>
    </select> <input id="t_u-step" type="number" min="0" size="4"></fieldset>
  <fieldset><legend>A: the run adopted v′</legend>
    <select id="adopted"><option value="yes">yes</option><option value="no">no</option>
    <option value="undecidable">undecidable</option></select></fieldset>
  <label>Note <textarea id="note" rows="3" cols="36"></textarea></label>
  <button id="save">Save label</button>
  <p id="message"></p>
  <p class="small">Every save is appended to your own file; the last save of a packet
  counts. You never see other reviewers' labels. Calibration packets come first: they are
  practice and are not counted in the agreement statistics.</p>
</div>
<div id="main">
  <p id="kind"></p>
  <h4>Fault contract</h4>
  <div id="contract"><pre id="contract-text"></pre></div>
  <h4>Model-visible trajectory</h4>
  <table id="steps"></table>
</div>
<script>"""

PAGE = HEAD + SCRIPT + "</script>\n</body>\n</html>\n"

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
CSP = (
    "default-src 'none'; "
    f"script-src 'sha256-{_SCRIPT_HASH}'; "
    "style-src 'unsafe-inline'; "
    "connect-src 'self'; "
    "img-src 'none'; "
    "base-uri 'none'; "
    "form-action 'none'; "
    "frame-ancestors 'none'"
)
"""Only the page's own script runs; no other origin is contacted; no page may frame it."""
