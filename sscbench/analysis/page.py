"""The page shell every report page shares: style, Content-Security-Policy, document.

The pages load nothing from anywhere else: no CDN, no fonts, no fetches. The policy allows
only ``data:`` images, the page's own inline style and script (by hash) and scripts from the
page's own folder, so even text that escaped escaping could not run.
"""

from __future__ import annotations

import base64
import hashlib

from sscbench.analysis.templating import Markup, render
from sscbench.analysis.viewer import VIEWER_CSS, VIEWER_SCRIPT

PAGE_CSS = """
:root{color-scheme:light}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
 color:#1a1a1a;background:#fafafa}
header,main{max-width:1180px;margin:0 auto;padding:0 1.2em}
header{padding-top:.6em}
h1{font-size:1.45em;margin:.2em 0}
h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.05em}
nav.toc{font-size:.85em} nav.toc a{margin-right:.75em}
.meta{color:#555;font-size:.88em}
.note{color:#444;font-size:.9em;max-width:60em}
figure{margin:1em 0;background:#fff;border:1px solid #e3e3e3;padding:.5em;overflow-x:auto}
figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.85em;color:#444;margin-top:.4em}
.table-wrap{overflow-x:auto}
table.data{border-collapse:collapse;font-size:.85em;background:#fff;margin:.5em 0}
table.data th,table.data td{border-bottom:1px solid #e5e5e5;padding:.25em .6em;
 text-align:right;vertical-align:top}
table.data th{border-bottom:2px solid #999;background:#f3f3f3}
table.data td.key,table.data th.key{text-align:left;font-family:ui-monospace,monospace}
table.data tr.total td{border-top:2px solid #999;font-weight:600}
.v{font-weight:600}.ci{color:#555}.n{color:#777;font-size:.9em;font-family:ui-monospace,monospace}
.empty{color:#999}
.files li{font-family:ui-monospace,monospace;font-size:.9em}
dl.defs dt{font-weight:600;margin-top:.6em} dl.defs dd{margin-left:1.2em}
.problems{color:#8a1c1c}
nav.toc a.viewer-link{font-weight:600;margin-right:1.4em}
#answer h2{margin-top:.8em}
.answer{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:1em;align-items:start}
.answer figure{margin:0;width:min-content}
.answer figure img{max-width:none}
.answer-text table.data{margin-top:0}
table.summary{font-size:.84em}
table.summary td,table.summary th{padding:.3em .45em;white-space:nowrap}
table.summary th{white-space:normal}
.readings{font-size:.9em;margin:.5em 0;padding-left:1.2em;max-width:44em}
.readings li{margin:.15em 0}
details.long>summary{cursor:pointer;font-size:.9em;color:#333;margin:.6em 0}
a.runs{font-family:system-ui,sans-serif;font-size:.95em}
@media (max-width:1100px){.answer{grid-template-columns:minmax(0,1fr)}
 .answer figure{width:auto} .answer figure img{max-width:100%}}
"""


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(style: str, script: str) -> str:
    """Nothing external; only ``data:`` images, this page's own style and script, and
    scripts from its own folder (the viewer's shard files: ``'self'`` is the only way a
    page opened from disk may load data it did not inline)."""
    return (
        "default-src 'none'; "
        "img-src data:; "
        f"style-src {_csp_hash(style)}; "
        f"script-src {_csp_hash(script)} 'self'; "
        "base-uri 'none'; form-action 'none'"
    )


def page(title: str, body: str) -> str:
    """A complete self-contained HTML document around ``body`` (already escaped HTML)."""
    style = PAGE_CSS + VIEWER_CSS
    return render(
        "page.html.j2",
        title=title,
        csp=content_security_policy(style, VIEWER_SCRIPT),
        style=Markup(style),
        script=Markup(VIEWER_SCRIPT),
        body=Markup(body),
    )
