"""URLs of the project set-up area (included by annotator.home.urls, namespace `annotator`)."""

from django.urls import path

from annotator.projects import views

urlpatterns = [
    path("projects/new/", views.project_create, name="project-create"),
    path("projects/<int:project_pk>/settings/", views.project_settings, name="project-settings"),
    path(
        "projects/<int:project_pk>/settings/clone-tagset/",
        views.project_tagset_clone,
        name="project-tagset-clone",
    ),
    path("projects/<int:project_pk>/members/", views.project_members, name="project-members"),
    path("projects/<int:project_pk>/members/add/", views.member_add, name="member-add"),
    path("projects/<int:project_pk>/members/create/", views.member_create, name="member-create"),
    path("projects/<int:project_pk>/members/<int:user_pk>/roles/", views.member_roles, name="member-roles"),
    path(
        "projects/<int:project_pk>/members/<int:user_pk>/remove/", views.member_remove, name="member-remove"
    ),
    path("projects/<int:project_pk>/invitations/", views.invitation_create, name="invitation-create"),
    path(
        "projects/<int:project_pk>/invitations/<int:invitation_pk>/revoke/",
        views.invitation_revoke,
        name="invitation-revoke",
    ),
    path("invitations/<str:token>/", views.invitation_accept, name="invitation-accept"),
    path("accounts/users/new/", views.user_create, name="user-create"),
    path("tagsets/", views.tagset_list, name="tagset-list"),
    path("tagsets/new/", views.tagset_create, name="tagset-create"),
    path("tagsets/<int:tagset_pk>/", views.tagset_detail, name="tagset-detail"),
    path("tagsets/<int:tagset_pk>/clone/", views.tagset_clone, name="tagset-clone"),
    path("tagsets/<int:tagset_pk>/types/", views.type_create, name="type-create"),
    path("tagsets/<int:tagset_pk>/types/<int:type_pk>/", views.type_update, name="type-update"),
    path("tagsets/<int:tagset_pk>/types/<int:type_pk>/delete/", views.type_delete, name="type-delete"),
    path("projects/<int:project_pk>/guidelines/", views.project_guidelines, name="project-guidelines"),
    path(
        "projects/<int:project_pk>/guidelines/acknowledge/",
        views.guidelines_acknowledge,
        name="guidelines-acknowledge",
    ),
    path("projects/<int:project_pk>/pairs/", views.pair_list, name="pair-list"),
]
