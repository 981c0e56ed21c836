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
    """The page templates' `td(cell)`, `tree(value)` and `item_row(item)` in Python, not as Jinja macros or loops:
    the same markup (a table cell; a value as nested `<dl>` and `<ol>` lists; a report's item row), several times
    faster, for a report calls them thousands of times (each item row's cells, its sample and steps)."""
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

    def item_row(item: Any) -> Markup:
        """One row of a run report's item table (`report.html.jinja`'s `items`): its cells, then its calls, steps,
        sample and images folded in a `<details>`."""
        out = ["<tr", *(f' data-{escape(k)}="{escape(v)}"' for k, v in item.data.items()), ">"]
        out += [td(c) for c in item.cells]
        out.append(f'<td data-value="{len(item.calls)}">')
        if not (item.calls or item.steps or item.sample):
            return Markup("".join(out) + "-</td></tr>\n")
        steps = ", steps" if item.steps else ""
        out.append(f"<details><summary>{len(item.calls)} call(s){steps}</summary>\n")
        if item.images:
            out.append("<h4>Images</h4>")
            for image in item.images:
                src, label = escape(image.src), escape(image.label)
                link = f'<a href="{src}"><img src="{src}" alt="{label}" loading="lazy"></a>' if image.src else ""
                out.append(f'<figure class="thumb">{link}<figcaption>{label}</figcaption></figure>')
        out += [f"<h4>Sample</h4>{tree(item.sample)}"] if item.sample else []
        out += [f"<h4>Steps</h4>{tree(item.steps)}"] if item.steps else []
        for call in item.calls:
            out.append(f"<h4>{escape(call.template)}</h4><p>{escape(call.about)}</p>\n")
            out += [f"<p><b>{escape(call.problem)}</b></p>"] if call.problem else []
            out.append(_shown("Prompt", "prompt", call.prompt, _NO_PROMPT))
            out.append(_shown("Raw reply", "reply", call.reply, "no reply"))
        return Markup("".join(out) + "</details></td></tr>\n")

    return {"td": td, "tree": tree, "item_row": item_row}


_NO_PROMPT = "not available (the run's prompt folder is gone or its template changed since the run)"


def _shown(heading: str, cls: str, text: str | None, missing: str) -> str:
    """A call's prompt or reply as a `<pre>`, or a note that it is missing."""
    from markupsafe import escape

    shown = f'<pre class="{cls}">{escape(text)}</pre>' if text is not None else f"<p><i>{missing}</i></p>"
    return f"<p>{heading}:</p>{shown}"


def _iterable(value: Any) -> bool:
    """Jinja's `iterable` test."""
    try:
        iter(value)
    except TypeError:
        return False
    return True
