import pytest

from annotator.core.tagsets import ETPC_NAME, VILA_NAME
from annotator.models import Tagset
from tests import make


@pytest.mark.django_db
def test_builtin_tagsets_are_loaded_by_migration():
    vila = Tagset.objects.get(name=VILA_NAME)
    assert vila.types.count() == 24
    assert len({t.type_class for t in vila.types.all()}) == 5
    assert len({t.subclass for t in vila.types.all() if t.subclass}) == 4
    etpc = Tagset.objects.get(name=ETPC_NAME)
    assert etpc.types.count() == 29
    assert etpc.types.get(code="100").name == "Negation"


@pytest.mark.django_db
def test_factory_project_has_pairs_with_tree_nodes(cast):
    anna = cast.anna
    project = make.project_with_pairs(annotators=(anna,))
    pair = project.pairs.first()
    assert pair.nodes1[0]["label"] == "S" and pair.nodes1[0]["end"] == len(pair.tokens1)
    assert pair.assignments.filter(annotator=anna).exists()
