"""The lead's evaluation page: build units, assign raters, start re-evaluation, see the numbers."""

import json
import re
import subprocess
import sys

import pytest
from django.urls import reverse

from annotator.agreement.computation import recompute
from annotator.agreement.document import project_document
from annotator.evaluation import services as evaluation
from annotator.models import Assignment, EvaluationUnit, ReevaluationSet
from annotator.projects.roles import grant_role
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    lead = make.cast().lead
    raters = make.raters(3)
    project = make.evaluation_project(n_units=0, lead=lead)
    for rater in raters:
        grant_role(project, rater, "annotator")
    return project, lead, raters


def url(project):
    return reverse("annotator:evaluation-setup", args=[project.pk])


def test_build_a_unit_from_a_sentence_and_substitutions(client, world):
    project, lead, _ = world
    client.force_login(lead)
    response = client.post(
        url(project),
        {
            "action": "unit",
            "source_sentence": "We look into it and look into it again.",
            "phrase": "look into",
            "occurrence": "2",
            "substitutions": "examine | lexicon-A\n\nstudy",
        },
    )
    assert response.status_code == 302
    unit = EvaluationUnit.objects.get(project=project)
    assert (unit.source_id, unit.phrase_start) == ("u001", 20)
    assert [(i.source_id, i.sentence, i.candidate_source) for i in unit.items.all()] == [
        ("e1", "We look into it and examine it again.", "lexicon-A"),
        ("e2", "We look into it and study it again.", ""),
    ]


def test_a_bad_unit_says_where_and_keeps_what_was_typed(client, world):
    project, lead, _ = world
    client.force_login(lead)
    response = client.post(
        url(project),
        {
            "action": "unit",
            "source_sentence": "A short sentence.",
            "phrase": "long",
            "occurrence": "1",
            "substitutions": "lengthy | lex\nbrief | a | b",
        },
    )
    body = response.content.decode()
    assert response.status_code == 422
    assert "Line 2: use one “|”" in body and "occurs 0 time(s)" in body
    assert "A short sentence." in body and "lengthy | lex" in body
    assert not EvaluationUnit.objects.exists()


def test_assign_raters_balanced(client, world):
    project, lead, raters = world
    for n in range(4):
        make.unit(project, f"u{n}")
    client.force_login(lead)
    response = client.post(
        url(project), {"action": "assign", "raters": [r.pk for r in raters], "r": "2", "seed": "1"}
    )
    assert response.status_code == 302
    loads = sorted(Assignment.objects.filter(project=project).values_list("annotator", flat=True))
    assert len(loads) == 8 and {loads.count(r.pk) for r in raters} <= {2, 3}
    again = client.post(
        url(project),
        {"action": "assign", "raters": [r.pk for r in raters], "r": "2", "seed": "1"},
        follow=True,
    )
    assert "nothing to assign" in again.content.decode()


def test_assign_rejects_r_above_the_raters_given(client, world):
    project, lead, raters = world
    make.unit(project, "u1")
    client.force_login(lead)
    response = client.post(
        url(project), {"action": "assign", "raters": [raters[0].pk], "r": "3", "seed": "0"}
    )
    assert response.status_code == 422 and "1 ≤ r ≤ 1" in response.content.decode()


@pytest.mark.usefixtures("eager_celery")
def test_start_reevaluation_draws_the_sets_with_the_seed(client, world):
    project, lead, raters = world
    unit = make.unit(project, "u1")
    evaluation.assign_units(project, raters, r=3)
    make.rate_unit(unit, raters[0], "Perfect", "Equivalent")
    make.rate_unit(unit, raters[1], "Irredeemable", "Equivalent")
    client.force_login(lead)
    early = client.post(url(project), {"action": "reevaluation", "seed": "0"}, follow=True)
    assert early.status_code == 200 and ReevaluationSet.objects.filter(seed=0).count() == 6
    assert "Drawing the re-evaluation sets" in early.content.decode()


def test_reevaluation_before_any_finalized_unit_is_refused(client, world):
    project, lead, _ = world
    client.force_login(lead)
    response = client.post(url(project), {"action": "reevaluation", "seed": "0"})
    assert response.status_code == 422 and "nothing to re-evaluate" in response.content.decode()


def test_numbers_on_the_page_equal_the_metrics_cli_on_the_exported_project(
    client, world, tmp_path, django_assert_max_num_queries
):
    project, lead, raters = world
    for n in range(4):
        make.unit(project, f"u{n}")
    evaluation.assign_units(project, raters, r=3)
    labels = [
        ("Perfect", "Equivalent"),
        ("Awkward", "Missing Info."),
        ("Irredeemable", "Completely Different"),
    ]
    for n, unit in enumerate(project.units.order_by("position")):
        for k, rater in enumerate(raters):
            g, m = labels[(n + k * (n % 2)) % 3]
            make.rate_unit(unit, rater, g, m)
    recompute(project.pk)
    exported = tmp_path / "project.json"
    exported.write_text(json.dumps(project_document(project)))
    cli = subprocess.run(
        [sys.executable, "-m", "metrics", "report", str(exported)], capture_output=True, text=True, check=True
    )
    measures = json.loads(cli.stdout)["measures"]
    client.force_login(lead)
    with django_assert_max_num_queries(25):
        body = client.get(url(project)).content.decode()
    for scale in ("G5", "M6", "G2", "M2"):
        row = re.search(rf'<tr data-scale="{scale}">(.*?)</tr>', body, re.S).group(1)
        shown = re.findall(r'<td class="num kappa [^"]*">([^<]*)</td>', row)[0]
        expected = measures[f"fleiss.{scale}"]["value"]
        assert shown == ("—" if expected is None else f"{expected:.3f}"), scale
    pair = f"{raters[0].username}|{raters[1].username}"
    cells = re.search(rf'<tr data-pair="{re.escape(pair)}">(.*?)</tr>', body, re.S).group(1)
    first = re.findall(r'<td class="num kappa [^"]*"[^>]*>([^<]*)</td>', cells)[0]  # G5 before
    assert first == f"{measures['cohen.G5']['by_pair'][pair]:.2f}"


def test_role_matrix(client, world):
    project, lead, raters = world
    assert client.get(url(project)).status_code == 302
    for user, status in (
        (make.cast().outsider, 404),
        (raters[0], 403),
        (make.cast().admin, 200),
        (lead, 200),
    ):
        client.force_login(user)
        assert client.get(url(project)).status_code == status
