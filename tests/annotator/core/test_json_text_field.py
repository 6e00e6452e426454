"""Agreement sections' measures kept as JSON text (`JSONTextField`): what is stored reads back equal."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from annotator.models import AgreementSection
from annotator.models.fields import dumps
from tests import make

pytestmark = pytest.mark.django_db
_names = itertools.count()

values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=60, deadline=None)
@given(measures=st.dictionaries(st.text(max_size=10), values, max_size=6))
def test_measures_read_back_equal_floats_bit_for_bit(measures):
    project = make.project_with_pairs(f"Text {next(_names)}", n_pairs=1)
    finite = {k: v for k, v in measures.items() if not _infinite(v)}
    AgreementSection.objects.update_or_create(
        project=project, name="phenomena", defaults={"measures": finite}
    )
    stored = AgreementSection.objects.values_list("measures", flat=True).get(
        project=project, name="phenomena"
    )
    assert stored == finite
    assert _floats(stored) == _floats(finite)  # 0.1 + 0.2 stays 0.30000000000000004, -0.0 stays -0.0


def test_non_finite_values_and_numpy_scalars_are_written_as_the_report_has_them():
    assert dumps({"a": math.nan, "b": np.float64(0.25), "c": np.int64(3), 1: [np.bool_(True)]}) == (
        '{"a":null,"b":0.25,"c":3,"1":[true]}'
    )
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": object()})


def _infinite(value) -> bool:
    if isinstance(value, float):
        return math.isinf(value)
    if isinstance(value, list):
        return any(map(_infinite, value))
    if isinstance(value, dict):
        return any(map(_infinite, value.values()))
    return False


def _floats(value) -> list:
    if isinstance(value, float):
        return [math.copysign(1.0, value), value.hex()]
    if isinstance(value, list):
        return [x for v in value for x in _floats(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _floats(value[k])]
    return []
