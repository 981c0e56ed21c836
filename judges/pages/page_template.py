"""Renders a page template from this package with autoescaping and strict undefined variables."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def page_environment() -> Any:
    """The one Jinja environment of the page templates, their `td` and `tree` among its globals."""
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("judges.pages", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(_cell_functions(env))
    return env


def render_page(template: str, **context: Any) -> str:
    """`template` (e.g. "report.html.jinja") rendered with `context`."""
    return str(page_environment().get_template(template).render(**context))


def _cell_functions(env: Any) -> dict[str, Any]:
    """The page templates' `td(cell)` and `tree(value)` in Python, not as Jinja macros: the same markup (a table
    cell; a value as nested `<dl>` and `<ol>` lists), several times faster, for a report calls them thousands of
    times (each item row's cells, its sample and steps)."""
    from collections.abc import Mapping

    from markupsafe import Markup, escape

    def td(cell: Any) -> Markup:
        sort, cls = env.getattr(cell, "sort"), env.getattr(cell, "cls")
        shown = "" if sort is None else f' data-value="{escape(sort)}"'
        shown += f' class="{escape(cls)}"' if cls else ""
        return Markup(f"<td{shown}>{escape(env.getattr(cell, 'text'))}</td>")

    def tree(value: Any) -> Markup:
        if isinstance(value, Mapping):
            entries = "".join(f"<dt>{escape(key)}</dt><dd>{tree(item)}</dd>" for key, item in value.items())
            return Markup(f'<dl class="tree">{entries}</dl>\n')
        if _iterable(value) and not isinstance(value, str):
            return Markup("<ol>" + "".join(f"<li>{tree(item)}</li>" for item in value) + "</ol>" if value else "(none)")
        return Markup(f"{escape('null' if value is None else value)}\n")

    return {"td": td, "tree": tree}


def _iterable(value: Any) -> bool:
    """Jinja's `iterable` test."""
    try:
        iter(value)
    except TypeError:
        return False
    return True
