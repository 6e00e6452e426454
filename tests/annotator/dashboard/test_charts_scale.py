"""Heatmap colour scales that span −1…1 and trend labels that never overlap."""

from datetime import UTC, datetime, timedelta

from annotator.dashboard import charts


def test_a_negative_kappa_is_not_coloured_like_zero():
    assert charts.colour_for(-0.10, low=-1.0) != charts.colour_for(0.0, low=-1.0)
    assert charts.colour_for(-1.0, low=-1.0)[0] == "#c53030"
    assert charts.colour_for(0.5, low=-1.0) == charts.colour_for(0.5)  # 0…1 unchanged by the divergence


def test_the_legend_spans_the_measure_range():
    kappa = charts.legend(-1.0, 1.0)
    assert [text for _, text in kappa["ticks"]] == ["−1", "0", "1"]
    assert "#c53030" in kappa["gradient"]
    assert [text for _, text in charts.legend(0.0, 1.0)["ticks"]] == ["0", "1"]


def test_time_labels_never_overlap_when_snapshots_bunch_together():
    start = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    moments = [start, start + timedelta(minutes=1), start + timedelta(minutes=2), start + timedelta(days=3)]
    span = (moments[-1] - moments[0]).total_seconds()

    def x(moment):
        return 44 + 584 * (moment - start).total_seconds() / span

    ticks = charts.time_ticks(moments, span, x)
    boxes = []
    for at, anchor, text in ticks:
        width = charts.CHAR_WIDTH * len(text)
        boxes.append(
            {"start": (at, at + width), "end": (at - width, at), "middle": (at - width / 2, at + width / 2)}[
                anchor
            ]
        )
    boxes.sort()
    assert len(ticks) == 2  # the middle label would have collided with the first
    assert all(a[1] <= b[0] for a, b in zip(boxes, boxes[1:], strict=False))


def test_legend_entries_wrap_instead_of_overlapping():
    names = ["A very long series name number one", "Another long series name", "κ_C", "Label Fleiss κ"]
    positions = charts.legend_positions(names, left=52, right=628, top=200)
    for (x1, y1), (x2, y2), name in zip(positions, positions[1:], names, strict=False):
        assert y2 > y1 or x2 >= x1 + charts.CHAR_WIDTH * len(name)
    assert all(x <= 628 for x, _ in positions)
