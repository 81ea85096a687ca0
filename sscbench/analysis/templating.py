"""The report's HTML templates: Jinja2 with autoescaping, loaded from the package.

Every value a template receives is text and is escaped on output; only the templates'
own markup, and fragments another template (or the viewer, which escapes its own text)
already rendered — passed as :class:`markupsafe.Markup` — reach the page as HTML. Undefined
names are errors, not empty strings, so a template and its caller cannot drift apart
silently.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

__all__ = ["Markup", "render"]


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("sscbench.analysis", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, **context: Any) -> str:
    """``template`` (a file in ``templates/``) rendered with ``context``."""
    return _environment().get_template(template).render(**context)
