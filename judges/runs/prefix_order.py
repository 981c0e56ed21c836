"""The order of a serial judge's items that lets its server reuse the longest prompt prefix from one call to the next.

llama.cpp keeps the previous prompt's KV cache and reads a new prompt only from the first token where the two differ
(llama-cpp-python's `Llama.generate`). A GroUSE prompt holds the references, the question and the answers before the
metric's instructions, so a test's own calls already share everything up to the instructions; across tests, those
with the same references (and question, and reference answer) share it too when they run back to back. Sorted by
their first prompt's text, the tests with the longest common prefixes are neighbours: the order of a trie's
depth-first walk, which gives the largest total of neighbours' common prefixes (results/benchmarks/offline_judge.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from judges.runs.items import Item


def in_prefix_order(items: Sequence[Item], first_prompt: Callable[[Item], str]) -> list[Item]:
    """`items` sorted by the text of the first prompt each sends (a test's draws back to back, in draw order); each
    keeps its `order`, so records, reports and call priorities still follow the file."""
    return sorted(items, key=lambda item: (first_prompt(item), item.order))
