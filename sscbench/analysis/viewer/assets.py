"""The viewer's style and script, inlined into the page (the CSP allows them by hash).

The script never parses run text as HTML: every string from a shard file or the index goes
into the document through ``textContent`` or an attribute value. It draws at most
:data:`PAGE` index rows at a time and opens runs in small batches, so neither 100,000 runs
nor "expand shown" can freeze the page.
"""

from __future__ import annotations

from sscbench.analysis.viewer.shards import CALLBACK, RUNS_DIR, SHARD

PAGE = 100
"""Index rows drawn at once ("show more" draws the next ones)."""

VIEWER_CSS = """
#run-list details.run{border:1px solid #ccc;border-radius:4px;margin:.3em 0;background:#fff}
details.run>summary{cursor:pointer;padding:.3em .5em;font-family:ui-monospace,monospace;
 font-size:.85em;overflow-wrap:anywhere}
details.run[open]>summary{border-bottom:1px solid #ddd;background:#f6f6f6}
.run-meta{margin:.5em 1em;font-size:.85em}
.run-meta dt{font-weight:600;float:left;clear:left;width:6.5em}
.run-meta dd{margin-left:7em;overflow-wrap:anywhere}
.run-meta dd.value{font-family:ui-monospace,monospace}
ol.history{list-style:none;margin:0;padding:0 .5em .5em .5em}
ol.history>li{display:grid;grid-template-columns:3.2em 7em minmax(0,1fr);gap:.5em;
 border-top:1px solid #eee;padding:.25em 0}
.step{font-family:ui-monospace,monospace;color:#555;text-align:right}
.who{font-size:.8em;color:#333}
.text{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,monospace;
 font-size:.8em;margin:0}
li.k-user_message .who{color:#6a3d9a} li.k-agent_message .who{color:#1f5f99}
li.k-tool_call .who{color:#7a5a00} li.k-tool_observation .who{color:#3a6b35}
li.ev{background:#fffbe6}
.mark{display:inline-block;font:600 .75em/1.5 ui-monospace,monospace;border-radius:3px;
 padding:0 .35em;margin:0 .3em .2em 0;color:#fff}
.m-t_f{background:#b00020}.m-t_e{background:#0072B2}.m-t_s{background:#7a5a00}
.m-t_u{background:#D55E00}.m-evidence{background:#fff;color:#0072B2;border:1px solid #0072B2}
.m-use{background:#fff;color:#444;border:1px solid #888}
.badge{display:inline-block;font-size:.8em;border-radius:3px;padding:0 .3em;margin-left:.3em;
 border:1px solid #999}
.b-adopted{border-color:#D55E00;color:#D55E00}
.controls{display:flex;flex-wrap:wrap;gap:.4em .8em;align-items:center;margin:.5em 0}
.controls select,.controls input{max-width:100%}
.pick{font-size:.85em;display:inline-flex;gap:.3em;align-items:center;max-width:100%}
.no-match{font-weight:600;color:#8a1c1c;background:#fff3f3;border:1px solid #e0b4b4;
 padding:.5em .8em;border-radius:4px}
@media (max-width:640px){
 body{font-size:14px}
 header,main{padding:0 .6em}
 ol.history>li{grid-template-columns:2.4em minmax(0,1fr)}
 ol.history>li .who{grid-column:2}
 ol.history>li>div{grid-column:1/-1}
 .run-meta dt{float:none;width:auto}
 .run-meta dd{margin-left:.8em}
 .pick,.pick select,.pick input{width:100%}
 figure img{max-width:none;width:640px}
}
"""

_SCRIPT = """(function () {
  "use strict";
  var PAGE = @PAGE@, SHARD = @SHARD@, DIR = "@DIR@";
  var data = document.getElementById("run-index");
  if (!data) { return; }
  var index = JSON.parse(data.textContent);
  var runs = index.runs;
  function $(id) { return document.getElementById(id); }
  var list = $("run-list"), count = $("run-count"), none = $("run-none"), more = $("run-more");
  var text = $("run-filter"), pickers = {
    1: $("run-configuration"), 2: $("run-operator"), 3: $("run-case")
  };
  var klass = $("run-class"), adopted = $("run-adopted");
  var hay = null, matches = [], shown = 0, cache = {}, waiting = {};
  function el(tag, cls, txt) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (txt !== undefined) { e.textContent = txt; }
    return e;
  }
  function slug(id) { return "run-" + id.replace(/[^A-Za-z0-9_.-]/g, "_"); }
  function haystack(r) {
    return (r[0] + "\\n" + index.configurations[r[1]] + "\\n" + index.operators[r[2]] +
      "\\n" + index.cases[r[3]]).toLowerCase();
  }
  function apply() {
    var q = text.value.trim().toLowerCase();
    if (q && !hay) { hay = runs.map(haystack); }
    var want = {};
    for (var k in pickers) { want[k] = pickers[k].value === "" ? -1 : +pickers[k].value; }
    var z = klass.value, a = adopted.value === "" ? null : +adopted.value;
    matches = [];
    for (var i = 0; i < runs.length; i++) {
      var r = runs[i];
      if ((want[1] >= 0 && r[1] !== want[1]) || (want[2] >= 0 && r[2] !== want[2]) ||
          (want[3] >= 0 && r[3] !== want[3]) || (z && r[9] !== z) ||
          (a !== null && r[10] !== a) || (q && hay[i].indexOf(q) < 0)) { continue; }
      matches.push(i);
    }
    list.textContent = "";
    shown = 0;
    showMore();
  }
  function showMore() {
    var end = Math.min(matches.length, shown + PAGE), frag = document.createDocumentFragment();
    for (var k = shown; k < end; k++) { frag.appendChild(row(matches[k])); }
    list.appendChild(frag);
    shown = end;
    none.hidden = matches.length > 0;
    more.hidden = shown >= matches.length;
    more.textContent = "show " + Math.min(PAGE, matches.length - shown) + " more";
    count.textContent = matches.length === 0 ? "0 of " + runs.length + " runs match" :
      "showing " + shown + " of " + matches.length + " matching runs (" + runs.length +
      " in all)";
  }
  function row(n) {
    var r = runs[n], d = el("details", "run"), s = el("summary");
    d.id = slug(r[0]);
    d.setAttribute("data-n", n);
    d.setAttribute("data-zs", r[9]);
    d.setAttribute("data-adopted", r[10] === 1 ? "true" : r[10] === 0 ? "false" : "undefined");
    s.appendChild(el("span", "rid", r[0]));
    s.appendChild(el("span", "badge", index.configurations[r[1]]));
    s.appendChild(el("span", "badge", "T_F=" + r[5] + " T_E=" + r[6] + " T_S=" + r[7] +
      " T_U=" + r[8]));
    if (r[10] === 1) { s.appendChild(el("span", "badge b-adopted", "adopted")); }
    if (r[11] === 1) { s.appendChild(el("span", "badge", "control")); }
    if (r[9] !== "-") { s.appendChild(el("span", "badge", "Z_S=" + r[9])); }
    d.appendChild(s);
    d.addEventListener("toggle", function () { if (d.open) { openRun(d, n); } });
    return d;
  }
  window.@CALLBACK@ = function (k, shard, strings) {
    function s(i) { return strings[i]; }
    for (var key in shard) {
      var p = shard[key];
      cache[+key] = {
        id: p.id, missing: p.missing,
        meta: p.meta.map(function (m) { return [s(m[0]), s(m[1])]; }),
        events: p.events.map(function (e) {
          return [e[0], s(e[1]), s(e[2]), s(e[3]), e[4].map(function (t) { return t.map(s); })];
        })
      };
    }
    var w = waiting[k] || [];
    delete waiting[k];
    w.forEach(function (f) { f(); });
  };
  function shardFile(n) { return DIR + "/" + Math.floor(n / SHARD) + ".js"; }
  function load(n, done) {
    if (cache[n]) { done(cache[n]); return; }
    var k = Math.floor(n / SHARD), finish = function () { done(cache[n] || null); };
    if (waiting[k]) { waiting[k].push(finish); return; }
    waiting[k] = [finish];
    var s = document.createElement("script");
    s.src = shardFile(n);
    s.onload = function () { s.remove(); };
    s.onerror = function () {
      s.remove();
      var w = waiting[k] || [];
      delete waiting[k];
      w.forEach(function (f) { f(); });
    };
    document.head.appendChild(s);
  }
  function openRun(d, n) {
    if (d.hasAttribute("data-state")) { return; }
    var started = performance.now();
    d.setAttribute("data-state", "loading");
    var wait = el("p", "run-meta", "loading…");
    d.appendChild(wait);
    load(n, function (p) {
      wait.remove();
      if (p === null) {
        d.appendChild(el("p", "run-meta", "run file " + shardFile(n) +
          " is missing beside this page"));
      } else { draw(d, p); }
      d.setAttribute("data-state", "shown");
      d.setAttribute("data-ms", (performance.now() - started).toFixed(1));
    });
  }
  function draw(d, p) {
    var dl = el("dl", "run-meta");
    p.meta.forEach(function (m) {
      dl.appendChild(el("dt", "", m[0]));
      dl.appendChild(el("dd", /^(true v|injected v)/.test(m[0]) ? "value" : "", m[1]));
    });
    d.appendChild(dl);
    if (p.missing) { d.appendChild(el("p", "run-meta", p.missing)); return; }
    var ol = el("ol", "history");
    p.events.forEach(function (e) {
      var li = el("li", "k-" + e[1]), box = el("div");
      if (e[4].some(function (t) { return /^m-t_/.test(t[0]); })) { li.className += " ev"; }
      li.setAttribute("data-step", e[0]);
      li.appendChild(el("span", "step", String(e[0])));
      li.appendChild(el("span", "who", e[2]));
      e[4].forEach(function (t) {
        var m = el("span", "mark " + t[0], t[1]);
        m.title = t[2];
        box.appendChild(m);
      });
      box.appendChild(el("pre", "text", e[3]));
      li.appendChild(box);
      ol.appendChild(li);
    });
    d.appendChild(ol);
  }
  function setAll(open) {
    var all = list.querySelectorAll("details.run"), k = 0;
    function batch() {
      for (var end = Math.min(all.length, k + 10); k < end; k++) { all[k].open = open; }
      if (k < all.length) { setTimeout(batch, 0); }
    }
    batch();
  }
  function reset() {
    text.value = "";
    for (var k in pickers) { pickers[k].value = ""; }
    klass.value = "";
    adopted.value = "";
  }
  function pick(picker, names, name) {
    var i = names.indexOf(name);
    picker.value = i < 0 ? "" : String(i);
  }
  function filterFromHash(query) {
    // #runs?configuration=NAME&operator=NAME&arrival=before|after|absent|none
    reset();
    query.split("&").forEach(function (part) {
      var kv = part.split("="), key = kv[0], value = decodeURIComponent(kv[1] || "");
      if (key === "configuration") { pick(pickers[1], index.configurations, value); }
      if (key === "operator") { pick(pickers[2], index.operators, value); }
      if (key === "arrival") { klass.value = value; }
    });
    apply();
    $("viewer-controls").scrollIntoView();
  }
  function openHash() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    if (window.location.hash.indexOf("#runs?") === 0) {
      filterFromHash(window.location.hash.slice(6));
      return;
    }
    if (id.indexOf("run-") !== 0) { return; }
    var d = $(id);
    if (!d) {
      for (var i = 0; i < runs.length && slug(runs[i][0]) !== id; i++) { }
      if (i === runs.length) { return; }
      reset();
      text.value = runs[i][0];
      apply();
      d = $(id);
    }
    if (d && d.tagName === "DETAILS") { d.open = true; d.scrollIntoView(); }
  }
  text.addEventListener("input", apply);
  [pickers[1], pickers[2], pickers[3], klass, adopted].forEach(function (p) {
    p.addEventListener("change", apply);
  });
  more.addEventListener("click", showMore);
  $("expand-all").addEventListener("click", function () { setAll(true); });
  $("collapse-all").addEventListener("click", function () { setAll(false); });
  window.addEventListener("hashchange", openHash);
  apply();
  openHash();
})();
"""
VIEWER_SCRIPT = (
    _SCRIPT.replace("@PAGE@", str(PAGE))
    .replace("@SHARD@", str(SHARD))
    .replace("@DIR@", RUNS_DIR)
    .replace("@CALLBACK@", CALLBACK)
)
