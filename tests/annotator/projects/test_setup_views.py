"""The set-up pages through their URLs: what each role may do and what the pages say."""

import html

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotator.annotation import services as annotation_services
from annotator.models import Invitation, Membership, Phenomenon, Project
from annotator.projects import guidelines, members, services, tagsets
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    lead, ann = make.user("lucia"), make.user("ann")
    project = make.project_with_pairs("P", lead=lead, annotators=(ann,))
    return {"lead": lead, "ann": ann, "project": project, "admin": make.user("root", staff=True)}


def test_a_lead_creates_a_project_and_errors_are_shown_at_the_fields(client, world):
    client.force_login(world["lead"])
    url = reverse("annotator:project-create")
    bad = client.post(
        url,
        {
            "name": "P",
            "language": "es",
            "phenomena_for": "all",
            "phase": "training",
            "reannotation_rule": "label_disagreement",
            "reannotation_threshold": "0.5",
            "reannotation_fraction": "0.1",
        },
    )
    assert bad.status_code == 422 and "exists; choose another name" in bad.content.decode()
    assert "Choose at least one layer" in bad.content.decode()
    good = client.post(
        url,
        {
            "name": "Nuevo",
            "language": "es",
            "layer_pair_label": "on",
            "phenomena_for": "all",
            "phase": "training",
            "reannotation_rule": "label_disagreement",
            "reannotation_threshold": "0.5",
            "reannotation_fraction": "0.1",
        },
    )
    project = Project.objects.get(name="Nuevo")
    assert good.status_code == 302 and project.language == "es"


def test_an_annotator_without_the_right_gets_a_styled_403_that_says_why(client, world):
    client.force_login(world["ann"])
    response = client.get(reverse("annotator:project-create"))
    page = response.content.decode()
    assert response.status_code == 403 and "Only administrators and project leads may create projects" in page
    assert "Back to your projects" in page


def test_an_outsider_gets_a_styled_404(client, world):
    client.force_login(make.user("stranger"))
    response = client.get(reverse("annotator:project-settings", args=[world["project"].pk]))
    assert response.status_code == 404 and "Back to your projects" in response.content.decode()


def test_the_admin_creates_an_account_that_may_create_projects(client, world):
    client.force_login(world["admin"])
    response = client.post(
        reverse("annotator:user-create"),
        {"username": "nuevo", "password": "short", "may_create_projects": "on"},
    )
    assert response.status_code == 422 and "too short" in response.content.decode()
    client.post(
        reverse("annotator:user-create"),
        {"username": "nuevo", "password": "a-long-pass-2026", "may_create_projects": "on"},
    )
    user = get_user_model().objects.get(username="nuevo")
    client.force_login(user)
    assert client.get(reverse("annotator:project-create")).status_code == 200


def test_an_invitation_page_tells_why_a_used_link_no_longer_works(client, world):
    invitation = members.create_invitation(world["project"], "annotator", world["lead"])
    url = reverse("annotator:invitation-accept", args=[invitation.token])
    assert client.get(url).status_code == 200  # no login needed to sign up
    client.post(url, {"username": "pau", "password": "pau-long-pass-2026"})
    assert Membership.objects.filter(user__username="pau", project=world["project"]).exists()
    client.logout()
    response = client.get(url)
    assert response.status_code == 410 and "used already" in response.content.decode()
    assert Invitation.objects.get().used_by.username == "pau"


def test_deleting_a_used_type_says_what_would_be_lost(client, world):
    project = world["project"]
    copy = tagsets.clone_tagset(project.tagset, world["lead"], project=project)
    ptype = copy.types.get(name="Diathesis")
    annotation_services.add_phenomenon(
        project.pairs.first(), world["ann"], ptype, scope1=[1], scope2=[0], base_version=None
    )
    client.force_login(world["lead"])
    response = client.post(reverse("annotator:type-delete", args=[copy.pk, ptype.pk]), follow=True)
    assert "1 phenomena (1 annotators) in P use 'Diathesis'; deleting it would delete them" in html.unescape(
        response.content.decode()
    )
    assert Phenomenon.objects.count() == 1
    builtin = client.post(
        reverse("annotator:type-update", args=[make.vila().pk, make.vila().types.first().pk])
    )
    assert builtin.status_code == 403 and "read-only" in builtin.content.decode()


def test_guidelines_are_shown_safely_with_the_type_definitions(client, world):
    guidelines.publish(world["project"], "**Mark** all <img src=x onerror=alert(1)>", world["lead"])
    client.force_login(world["ann"])
    page = client.get(reverse("annotator:project-guidelines", args=[world["project"].pk])).content.decode()
    assert "<strong>Mark</strong>" in page and "<img" not in page
    assert "A change of diathesis (voice)" in page  # Vila's Diathesis definition
    # ann has read no version yet: welcomed to them, not told that they changed
    assert "please read this project's guidelines" in page and "version 1" in page
    assert "The guidelines changed" not in page
    guidelines.acknowledge(world["project"], world["ann"])
    guidelines.publish(world["project"], "**Mark** everything", world["lead"])
    page = client.get(reverse("annotator:project-guidelines", args=[world["project"].pk])).content.decode()
    assert "The guidelines changed" in page and "version 2" in page
    denied = client.post(reverse("annotator:project-guidelines", args=[world["project"].pk]), {"text": "x"})
    assert denied.status_code == 403


def test_the_token_page_says_why_tokens_are_locked(client, world):
    pair = world["project"].pairs.first()
    client.force_login(world["lead"])
    url = reverse("annotator:pair-tokens", args=[world["project"].pk, pair.pk])
    response = client.post(url, {"tokens1": "The film opened", "tokens2": "Film premiered"})
    assert response.status_code == 422 and "imported parse trees" in response.content.decode()
    annotation_services.set_links(pair, world["ann"], [(0, 0)], sure=True, base_version=None)
    assert "while nobody has annotated" in client.get(url).content.decode()


def test_the_project_page_links_every_page_a_lead_needs(client, world):
    client.force_login(world["lead"])
    page = client.get(reverse("annotator:project-detail", args=[world["project"].pk])).content.decode()
    pk = world["project"].pk
    for name in (
        "dashboard",
        "planner",
        "explorer",
        "reannotation",
        "corpus-jobs",
        "evaluation-setup",
        "project-settings",
        "project-members",
        "project-guidelines",
        "pair-list",
    ):
        assert reverse(f"annotator:{name}", args=[pk]) in page, name
    assert reverse("annotator:tagset-detail", args=[world["project"].tagset_id]) in page


def test_the_api_creates_and_changes_a_project_through_the_same_rules(world):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(world["lead"])
    created = api.post("/api/projects/", {"name": "API ES", "language": "es"}, format="json")
    assert created.status_code == 201 and created.json()["language"] == "es"
    pk = created.json()["id"]
    assert Project.objects.get(pk=pk).tagset.name == "Vila et al. 2015"
    bad = api.patch(f"/api/projects/{pk}/", {"reannotation_rules": {"fraction": 3}}, format="json")
    assert bad.status_code == 400 and "fraction" in str(bad.json())
    assert (
        api.patch(f"/api/projects/{pk}/", {"phase": "agreement"}, format="json").json()["phase"]
        == "agreement"
    )
    assert services.reannotation_rules(Project.objects.get(pk=pk))["fraction"] == 0.1


def test_the_page_and_the_api_add_a_member_with_the_same_message(client, world):
    from rest_framework.test import APIClient

    project = world["project"]
    client.force_login(world["lead"])
    page = client.post(
        reverse("annotator:member-add", kwargs={"project_pk": project.pk}),
        {"username": "nobody", "role": "annotator"},
    )
    api = APIClient()
    api.force_authenticate(world["lead"])
    answer = api.post(
        f"/api/projects/{project.pk}/members/", {"username": "nobody", "role": "annotator"}, format="json"
    )
    message = "No user named 'nobody': create the account or send an invitation link."
    assert page.status_code == 422 and html.escape(message) in page.content.decode()
    assert answer.status_code == 400 and answer.json()["username"] == [message]


def test_an_import_into_a_new_project_asks_language_and_tagset_and_makes_the_importer_lead(client, world):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.make import mrpc_file

    client.force_login(world["admin"])
    assert 'name="language"' in client.get(reverse("annotator:corpus-import")).content.decode()
    data = mrpc_file(("1", "1", "2", "¿Vienes mañana?", "¿Llegas mañana?"))
    client.post(
        reverse("annotator:corpus-import"),
        {
            "project_name": "Importado",
            "language": "es",
            "tagset": make.vila().pk,
            "format": "mrpc",
            "files": [SimpleUploadedFile("msr_paraphrase_train.txt", data)],
        },
    )
    project = Project.objects.get(name="Importado")
    assert project.language == "es" and project.tagset == make.vila()
    assert project.pairs.get().tokens1 == ["¿", "Vienes", "mañana", "?"]
    assert Membership.objects.filter(project=project, user=world["admin"], role="lead").exists()
