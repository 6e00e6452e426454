"""Services of the project set-up area: projects, members and invitations, tagsets, guidelines (and token
correction, a corpus service)."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from annotator.annotation import services as annotation_services
from annotator.corpus import projects as old_projects
from annotator.corpus import tokens
from annotator.models import Membership, Phenomenon, Project, Tagset
from annotator.projects import guidelines, members, services, tagsets
from annotator.projects.roles import grant_role
from tests import make

pytestmark = pytest.mark.django_db


@pytest.fixture
def lead():
    return make.user("lucia")


def test_a_new_project_gets_sensible_defaults_and_its_creator_as_lead(lead):
    project = services.create_project(lead, name="ES", language="es")
    assert project.tagset.name == "Vila et al. 2015" and project.phase == "training"
    assert project.reannotation_rules == services.REANNOTATION_DEFAULTS
    assert Membership.objects.filter(project=project, user=lead, role="lead").exists()
    assert services.create_project(lead, name="EN").tagset.name.startswith("ETPC")


def test_project_validation_says_what_is_wrong(lead):
    services.create_project(lead, name="Taken")
    with pytest.raises(ValidationError) as error:
        services.create_project(
            lead,
            name="Taken",
            language="fr",
            layer_pair_label=False,
            layer_phenomena=False,
            layer_word_alignment=False,
            reannotation_rules={"fraction": 2},
        )
    messages = error.value.message_dict
    assert "exists" in messages["name"][0] and "Unknown language" in messages["language"][0]
    assert "at least one layer" in messages["layer_pair_label"][0]
    assert "fraction" in messages["reannotation_rules"][0]


def test_the_tagset_cannot_change_under_existing_phenomena(lead):
    ann = make.user("ann")
    project = make.project_with_pairs("P", lead=lead, annotators=(ann,))
    ptype = project.tagset.types.get(name="Diathesis")
    annotation_services.add_phenomenon(
        project.pairs.first(), ann, ptype, scope1=[1], scope2=[0], base_version=None
    )
    with pytest.raises(ValidationError, match="1 phenomena use types"):
        services.update_project(project, tagset=Tagset.objects.get(name__startswith="ETPC"))


def test_an_invitation_works_once_and_expires(lead):
    project = services.create_project(lead, name="P")
    invitation = members.create_invitation(project, "annotator", lead)
    user = members.sign_up_with_invitation(invitation.token, "pau", "pau-strong-pass-1")
    assert Membership.objects.filter(project=project, user=user, role="annotator").exists()
    with pytest.raises(ValidationError, match="used already"):
        members.accept_invitation(invitation.token, make.user("other"))
    late = members.create_invitation(project, "rater", lead)
    late.expires_at = timezone.now() - timedelta(seconds=1)
    late.save()
    with pytest.raises(ValidationError, match="expired"):
        members.sign_up_with_invitation(late.token, "nuria", "nuria-strong-pass-1")
    assert not Project.objects.get(pk=project.pk).members.filter(username="nuria").exists()


def test_removing_a_member_keeps_their_work_and_can_move_their_open_pairs(lead):
    ann, ben = make.user("ann"), make.user("ben")
    project = make.project_with_pairs("P", n_pairs=2, lead=lead, annotators=(ann,))
    grant_role(project, ben, "annotator")
    pair = project.pairs.first()
    ptype = project.tagset.types.get(name="Diathesis")
    annotation_services.add_phenomenon(pair, ann, ptype, scope1=[1], scope2=[0], base_version=None)
    removal = members.remove_member(project, ann, reassign_to=ben)
    assert removal.moved == 2
    assert not Membership.objects.filter(project=project, user=ann).exists()
    assert Phenomenon.objects.filter(annotator=ann).count() == 1  # attributed to ann still
    with pytest.raises(ValidationError, match="only lead"):
        members.remove_member(project, lead)


def test_a_type_in_use_is_not_deleted_but_can_be_merged(lead):
    ann = make.user("ann")
    project = make.project_with_pairs("P", lead=lead, annotators=(ann,))
    copy = tagsets.clone_tagset(project.tagset, lead, project=project)
    project.refresh_from_db()
    diathesis, other = copy.types.get(name="Diathesis"), copy.types.get(name="Coordination")
    annotation_services.add_phenomenon(
        project.pairs.first(), ann, diathesis, scope1=[1], scope2=[0], base_version=None
    )
    with pytest.raises(ValidationError, match="1 phenomena .* deleting it would delete them"):
        tagsets.delete_type(diathesis)
    assert tagsets.delete_type(diathesis, merge_into=other) == 1
    assert Phenomenon.objects.get().ptype == other


def test_built_in_tagsets_are_read_only_and_carry_definitions(lead):
    vila = make.vila()
    with pytest.raises(ValidationError, match="read-only"):
        tagsets.save_type(vila, vila.types.first(), name="x")
    assert all(t.description for t in vila.types.all())
    assert all(t.description for t in Tagset.objects.get(name__startswith="ETPC").types.all())


def test_type_validation(lead):
    tagset = tagsets.create_tagset(lead, "Mine")
    tagsets.save_type(tagset, name="A", type_class="C", shortcut="a")
    with pytest.raises(ValidationError) as error:
        tagsets.save_type(tagset, name="A", type_class="", shortcut="a", colour="red")
    assert set(error.value.message_dict) == {"name", "type_class", "shortcut", "colour"}


def test_guidelines_render_safely_and_members_are_told_of_a_new_version(lead):
    ann = make.user("ann")
    project = services.create_project(lead, name="P")
    grant_role(project, ann, "annotator")
    html = guidelines.render_markdown("**b** <script>alert(1)</script> [x](javascript:alert(1))")
    assert "<strong>b</strong>" in html and "<script" not in html and "&lt;script&gt;" in html
    assert "<a " not in html  # a javascript: link stays text
    guidelines.publish(project, "# v1", lead)
    assert guidelines.unseen_version(project, ann).number == 1
    assert guidelines.unseen_version(project, lead) is None
    guidelines.acknowledge(project, ann)
    assert guidelines.unseen_version(project, ann) is None
    guidelines.publish(project, "# v2", lead, note="new rule")
    assert guidelines.unseen_version(project, ann).note == "new rule"


def test_tokens_are_corrected_only_before_anyone_annotates(lead):
    ann = make.user("ann")
    project = services.create_project(lead, name="P")
    pair = old_projects.add_pair(project, "1", tokens1=["a", "b"], tokens2=["c"])
    old_projects.assign_pairs(project, [ann], [pair])
    tokens.correct_tokens(pair, ["a", "b", "."], ["c"])
    annotation_services.set_links(pair, ann, [(0, 0)], sure=True, base_version=None)
    with pytest.raises(ValidationError, match="while nobody has annotated"):
        tokens.correct_tokens(pair, ["ab"], ["c"])
