"""A report's item rows are drawn in Python (`item_row`, a global of the page templates), each the very markup the
Jinja loop that drew them before gave, on every branch: cells and data attributes, images with and without a link,
the sample, steps, calls with a problem, a prompt or reply missing, and a row with nothing to fold."""

from __future__ import annotations

from judges.pages.item_row import CallView, ItemRow, Thumbnail
from judges.pages.page_template import page_environment
from judges.pages.table import Cell

# report.html.jinja's item loop as it was, with the page environment's settings (trim_blocks, lstrip_blocks)
JINJA_LOOP = """{% for item in items %}
<tr{% for k, v in item.data.items() %} data-{{ k }}="{{ v }}"{% endfor %}>{% for c in item.cells %}{{ td(c) }}{% endfor %}
<td data-value="{{ item.calls | length }}">{% if item.calls or item.steps or item.sample %}<details><summary>\
{{ item.calls | length }} call(s){{ ", steps" if item.steps else "" }}</summary>
{% if item.images %}<h4>Images</h4>{% for image in item.images %}<figure class="thumb">{% if image.src %}\
<a href="{{ image.src }}"><img src="{{ image.src }}" alt="{{ image.label }}" loading="lazy"></a>{% endif %}\
<figcaption>{{ image.label }}</figcaption></figure>{% endfor %}{% endif %}
{% if item.sample %}<h4>Sample</h4>{{ tree(item.sample) }}{% endif %}
{% if item.steps %}<h4>Steps</h4>{{ tree(item.steps) }}{% endif %}
{% for call in item.calls %}
<h4>{{ call.template }}</h4><p>{{ call.about }}</p>
{% if call.problem %}<p><b>{{ call.problem }}</b></p>{% endif %}
<p>Prompt:</p>{% if call.prompt is not none %}<pre class="prompt">{{ call.prompt }}</pre>{% else %}<p><i>not \
available (the run's prompt folder is gone or its template changed since the run)</i></p>{% endif %}
<p>Raw reply:</p>{% if call.reply is not none %}<pre class="reply">{{ call.reply }}</pre>{% else %}<p><i>no reply\
</i></p>{% endif %}
{% endfor %}
</details>{% else %}-{% endif %}</td></tr>
{% endfor %}
"""

CALL = CallView("faithfulness", "call 1, <from the cache>", 'Prompt with <b> & "quotes"', '{"a": 1}', None)
ROWS = [
    ItemRow([Cell("1"), Cell("<q>", 2.5, "grade")], {"outcome": "grade", "metric": "m&m", "type": "-"}, [CALL]),
    ItemRow(
        [Cell("2", None, "")],
        {"outcome": "failure"},
        [CallView("t", "about", None, None, "unparseable <reply>"), CALL],
        steps={"verdict": {"state": "null", "grade": None}, "list": [1, "x<y"]},
        sample={"input": "q & a", "references": ["r1", "r2"], "empty": []},
        images=[Thumbnail("img/a b.png", 'a "label"'), Thumbnail(None, "data URL")],
    ),
    ItemRow([Cell("3")], {}, [], steps=None, sample=None),
    ItemRow([Cell("4")], {"outcome": "pass"}, [], steps=["only steps"]),
    ItemRow([Cell("5")], {"outcome": "pass"}, [], sample={"input": "only a sample"}),
]


def test_item_row_draws_each_row_as_the_jinja_loop_did():
    env = page_environment()
    expected = env.from_string(JINJA_LOOP).render(items=ROWS)
    drawn = env.from_string("{% for item in items %}{{ item_row(item) }}{% endfor %}\n").render(items=ROWS)
    assert drawn == expected
    assert expected.count("<tr") == len(ROWS) and "<figcaption>data URL</figcaption>" in expected
