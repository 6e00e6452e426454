"""Training the project's aligner: versions, sources, imported alignments kept, annotators' links
untouched, the UI panel, the API and the management command."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.annotation import worklist as work
from annotator.core import link_scorer, machine_alignments, wordnet_lexicon
from annotator.corpus import aligner_training as training
from annotator.corpus import projects
from annotator.models import AlignerRun, AlignmentLink, Pair
from annotator.projects import services as project_setup
from tests import make
from tests.make import HTMX, logged_in

pytestmark = pytest.mark.django_db
SENTENCES = [
    ("John bought a car .", "John purchased a car ."),
    ("Mary bought a house .", "Mary purchased a house ."),
    ("They bought two tickets .", "They purchased two tickets ."),
    ("She bought bread .", "She purchased bread ."),
]


@pytest.fixture(autouse=True)
def tasks_in_process(eager_celery):
    """The training task runs in-process here, even when REDIS_URL points at a broker."""


@pytest.fixture
def world():
    cast = make.cast()
    ann, lead = cast.anna, cast.lead
    project = project_setup.create_project(lead, name="Train", tagset=make.vila())
    pairs = []
    for n in range(24):
        s1, s2 = SENTENCES[n % len(SENTENCES)]
        pairs.append(projects.add_pair(project, f"p{n}", tokens1=s1.split(), tokens2=s2.split()))
    imported = projects.add_pair(
        project,
        "imp",
        tokens1=["A", "b"],
        tokens2=["a", "b"],
        initial_alignment=[[1, 1]],
        initial_alignment_source="imported",
    )
    projects.assign_pairs(project, [ann], [*pairs, imported])
    return project, ann, lead, pairs, imported


def _train(project, symmetrize="intersection"):
    run = training.create_run(project, None, training.settings_from(symmetrize))
    assert training.run_training(run.pk) == AlignerRun.Status.SUCCEEDED
    run.refresh_from_db()
    return run


def test_a_run_writes_versioned_initial_alignments_and_keeps_imported_ones(world):
    project, ann, _, pairs, imported = world
    annotation_services.set_links(pairs[0], ann, [(0, 0)], sure=False, base_version=None)
    run = _train(project)
    pair = Pair.objects.get(pk=pairs[0].pk)
    assert pair.initial_alignment_source == "eflomal/intersection" and pair.initial_alignment_version == 1
    assert [1, 1] in pair.initial_alignment  # bought ↔ purchased, which no identical token gives
    imported.refresh_from_db()
    assert imported.initial_alignment == [[1, 1]] and imported.initial_alignment_version is None
    assert run.report["written"] == 24 and run.report["kept_imported"] == 1
    assert list(AlignmentLink.objects.values_list("i", "j", "sure")) == [(0, 0, False)]


def test_retraining_writes_a_new_version_over_the_previous_one_only(world):
    project, *_ = world
    _train(project)
    second = _train(project, "grow-diag-final")
    assert second.version == 2
    sources = set(Pair.objects.filter(project=project).values_list("initial_alignment_source", flat=True))
    assert sources == {"eflomal/grow-diag-final", "imported"}
    assert set(
        Pair.objects.exclude(initial_alignment_source="imported").values_list(
            "initial_alignment_version", flat=True
        )
    ) == {2}


def test_one_run_at_a_time_and_none_without_pairs(world):
    project, *_ = world
    training.create_run(project, None, training.settings_from())
    with pytest.raises(training.TrainingError, match="still queued"):
        training.create_run(project, None, training.settings_from())
    empty = project_setup.create_project(None, name="Empty", tagset=make.vila())
    with pytest.raises(training.TrainingError, match="no pairs"):
        training.create_run(empty, None, training.settings_from())


def test_baseline_summary_names_each_source_with_its_version(world):
    project, *_ = world
    before = machine_alignments.baseline_summary(project)["sources"]
    assert {"source": "identical-tokens (built-in fallback, not stored)", "pairs": 24} in before
    _train(project)
    after = machine_alignments.baseline_summary(project)["sources"]
    assert {"source": "eflomal/intersection v1", "pairs": 24} in after
    assert {"source": "imported", "pairs": 1} in after


def test_lead_trains_from_the_corpus_page_and_sees_the_run(world, django_capture_on_commit_callbacks):
    project, ann, lead, *_ = world
    client = logged_in(lead)
    page = client.get(reverse("annotator:corpus-jobs", args=[project.pk])).content.decode()
    assert "Train aligner" in page and "κ_C baseline now" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("annotator:corpus-aligner", args=[project.pk]), {"symmetrize": "intersection"}, **HTMX
        )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="aligner"' in html and "Version 1" in html
    # without a broker the task ran in-process, on commit
    assert AlignerRun.objects.get(project=project).status == "succeeded"


def test_annotators_cannot_train(world):
    project, ann, *_ = world
    response = logged_in(ann).post(reverse("annotator:corpus-aligner", args=[project.pk]), {})
    assert response.status_code in (403, 404) and not AlignerRun.objects.exists()


def test_an_unknown_symmetrisation_is_refused_at_the_field(world):
    project, _, lead, *_ = world
    response = logged_in(lead).post(
        reverse("annotator:corpus-aligner", args=[project.pk]), {"symmetrize": "union"}, **HTMX
    )
    assert response.status_code == 422 and "union" in response.content.decode()


def test_api_starts_a_run_and_lists_its_progress(world, django_capture_on_commit_callbacks):
    project, ann, lead, *_ = world
    client = logged_in(lead)
    url = reverse("api-aligner-list", kwargs={"project_pk": project.pk})
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"symmetrize": "grow-diag-final"}, content_type="application/json")
    assert response.status_code == 202
    assert response.json()["version"] == 1 and response.json()["poll"].endswith(url)
    state = client.get(url).json()
    assert (
        state["runs"][0]["status"] == "succeeded" and state["runs"][0]["source"] == "eflomal/grow-diag-final"
    )
    assert state["runs"][0]["progress"] == state["runs"][0]["total"] == 25
    assert logged_in(ann).get(url).status_code in (403, 404)
    bad = client.post(url, {"symmetrize": "union"}, content_type="application/json")
    assert bad.status_code == 400 and "symmetrize" in bad.json()


def test_align_corpus_command(world, capsys):
    project, *_ = world
    call_command("align_corpus", "--project", str(project.pk), "--symmetrize", "grow-diag-final")
    assert "Version 1 (eflomal/grow-diag-final): 24 pairs aligned" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no project"):
        call_command("align_corpus", "--project", "nope")


def _stored_rows() -> dict[str, int]:
    """Rows per table of the workbench, the aligner's own run log apart."""
    return {
        model.__name__: model.objects.count()
        for model in apps.get_app_config("annotator").get_models()
        if model.__name__ != "AlignerRun"
    }


def test_retraining_copies_no_links_so_storage_does_not_grow_and_accepted_links_stay(world):
    project, ann, _, pairs, _ = world
    _train(project)
    first = work.suggestions(pairs[0], ann)[0][0]
    work.accept_suggestions(pairs[0], ann, base_version=None, only=[tuple(first)])
    work.accept_suggestions(pairs[1], ann, base_version=None)
    # A link the annotator made by hand, which no version of the aligner suggests.
    annotation_services.set_links(pairs[2], ann, [(0, 4)], sure=False, base_version=None)
    saved = set(AlignmentLink.objects.values_list("pair_id", "annotator_id", "i", "j", "sure"))
    rows = _stored_rows()

    for symmetrize in ("grow-diag-final", "intersection", "grow-diag-final"):
        _train(project, symmetrize)

    assert AlignerRun.objects.filter(project=project).count() == 4  # one small row per run, nothing else
    assert _stored_rows() == rows
    assert set(AlignmentLink.objects.values_list("pair_id", "annotator_id", "i", "j", "sure")) == saved
    automatic = Pair.objects.filter(project=project).exclude(initial_alignment_source="imported")
    # Each pair holds one alignment, the latest version's; earlier versions' links are gone with it.
    assert set(automatic.values_list("initial_alignment_version", flat=True)) == {4}
    for pair in automatic:
        assert all(isinstance(link, list) and len(link) == 2 for link in pair.initial_alignment)
    # The new version's suggestions leave out what the annotator already holds.
    mine = set(AlignmentLink.objects.filter(pair=pairs[1], annotator=ann).values_list("i", "j"))
    assert mine and not mine & {tuple(link) for link in work.suggestions(pairs[1], ann)[0]}


def test_the_default_run_stores_a_confidence_per_link_and_the_same_links_twice(world):
    project, _, _, pairs, imported = world
    first = _train(project, "per-kind")
    pair = Pair.objects.get(pk=pairs[0].pk)
    assert pair.initial_alignment_source == "posterior/per-kind" and [1, 1] in pair.initial_alignment
    assert len(pair.initial_alignment_confidence) == len(pair.initial_alignment)
    assert all(0 < c <= 1 for c in pair.initial_alignment_confidence)
    assert first.report["seed"] is None and first.report["reproducible"] is True
    assert first.report["wordnet"] is wordnet_lexicon.available()
    assert first.report["link_weights"] == link_scorer.weights_digest()
    before = dict(Pair.objects.filter(project=project).values_list("pk", "initial_alignment"))
    _train(project, "per-kind")
    after = dict(Pair.objects.filter(project=project).values_list("pk", "initial_alignment"))
    assert before == after
    imported.refresh_from_db()
    assert imported.initial_alignment_confidence is None


def test_eflomal_runs_store_no_confidence_and_say_they_are_not_reproducible(world):
    project, _, _, pairs, _ = world
    run = _train(project, "intersection")
    assert Pair.objects.get(pk=pairs[0].pk).initial_alignment_confidence is None
    assert run.report["reproducible"] is False


def test_lead_sets_the_suggestion_threshold_on_the_corpus_page(world):
    project, ann, lead, *_ = world
    aligner = reverse("annotator:corpus-aligner", args=[project.pk])
    response = logged_in(lead).post(aligner, {"suggestion_threshold": "0.65"}, **HTMX)
    assert response.status_code == 200 and 'value="0.65"' in response.content.decode()
    project.refresh_from_db()
    assert project.suggestion_threshold == 0.65 and not AlignerRun.objects.exists()
    refused = logged_in(lead).post(aligner, {"suggestion_threshold": "1.5"}, **HTMX)
    assert refused.status_code == 422 and 'role="alert"' in refused.content.decode()
    assert logged_in(ann).post(aligner, {"suggestion_threshold": "0.1"}).status_code in (403, 404)
    project.refresh_from_db()
    assert project.suggestion_threshold == 0.65
