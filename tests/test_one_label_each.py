"""A set of one label per item gives each item's (annotator, label) pairs when read, equal to the pairs held."""

from judges.labels.schema import NO_TEXT, LabelledItem, LabelledSet, LabelType, OneLabelEach


def item(n: int, label: float, annotator: str = "human") -> LabelledItem:
    return LabelledItem(f"i{n}", "faithfulness", label, LabelType.CONTINUOUS, (0.0, 1.0), annotator, NO_TEXT)


def test_one_label_each_reads_like_the_tuples_it_replaces():
    labels = LabelledSet("set", tuple(item(n, n / 10, f"a{n % 2}") for n in range(5)))
    ids, pairs = labels.by_item
    assert isinstance(pairs, OneLabelEach) and ids == ["i0", "i1", "i2", "i3", "i4"]
    expected = [((f"a{n % 2}", n / 10),) for n in range(5)]
    assert list(pairs) == expected and len(pairs) == 5
    assert pairs[3] == expected[3] and pairs[-1] == expected[-1] and list(pairs[1:3]) == expected[1:3]


def test_two_labels_of_an_item_still_give_the_held_pairs():
    labels = LabelledSet("set", (item(0, 0.2, "a"), item(0, 0.4, "b"), item(1, 0.6, "a")))
    ids, pairs = labels.by_item
    assert ids == ["i0", "i1"] and list(pairs) == [(("a", 0.2), ("b", 0.4)), (("a", 0.6),)]
