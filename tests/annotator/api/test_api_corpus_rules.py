"""The corpus rules (export options, a new project's name) hold alike on the page, in the API and in
`manage.py export_corpus`: the same refusal with the same message, from the one service that holds it."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from annotator.models import CorpusJob
from tests import make
from tests.make import TWO_ROWS

pytestmark = pytest.mark.django_db

ONE_ANNOTATOR = "This format holds one annotator's work: name them or choose the gold layer."
NOT_BOTH = "Choose an annotator or the gold layer, not both."


@pytest.fixture
def world(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return make.two_projects()


def _page(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        ({"format": "etpc"}, "annotator", ONE_ANNOTATOR),
        ({"format": "pharaoh"}, "annotator", ONE_ANNOTATOR),
        ({"format": "csv", "annotator": "anna", "gold": True}, "non_field_errors", NOT_BOTH),
    ],
)
def test_export_options_are_refused_alike(world, options, field, message):
    page = _page(world.lead).post(
        reverse("annotator:corpus-export", args=[world.project.pk]), {"variant": "json", **options}
    )
    assert page.status_code == 422 and message in html.unescape(page.content.decode())
    api = make.api_client(world.lead).post(
        "/api/jobs/export/", {"project": world.project.pk, **options}, format="json"
    )
    assert api.status_code == 400 and api.json() == {field: [message]}
    assert not CorpusJob.objects.exists()  # refused before a job is recorded


def test_export_command_says_the_same(world, tmp_path):
    with pytest.raises(CommandError, match=ONE_ANNOTATOR.replace(".", r"\.")):
        call_command(
            "export_corpus",
            "--format",
            "etpc",
            "--project",
            world.project.name,
            "--output",
            str(tmp_path / "x.xml"),
        )
    assert not Path(tmp_path / "x.xml").exists()


def _mrpc():
    return SimpleUploadedFile("msr_paraphrase_train.txt", TWO_ROWS, content_type="text/plain")


def test_a_new_project_named_like_an_existing_one_is_refused_alike(world):
    message = f"A project named {world.project.name!r} exists: import into it from its own page."
    fields = {"format": "mrpc", "project_name": world.project.name}
    page = _page(world.admin).post(reverse("annotator:corpus-import"), {**fields, "files": _mrpc()})
    assert page.status_code == 422 and message in html.unescape(page.content.decode())
    api = make.api_client(world.admin).post(
        "/api/jobs/import/", {**fields, "files": _mrpc()}, format="multipart"
    )
    assert api.status_code == 400 and api.json() == {"project_name": [message]}
    assert not CorpusJob.objects.exists()
