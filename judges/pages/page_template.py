"""Renders a page template from this package with autoescaping and strict undefined variables."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=PackageLoader("judges.pages", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_page(template: str, **context: Any) -> str:
    """`template` (e.g. "report.html.jinja") rendered with `context`."""
    return str(_environment().get_template(template).render(**context))
