"""URLs of the accounts area (included by annotator.urls, namespace `annotator`)."""

from django.urls import path

from annotator.accounts import views

urlpatterns = [
    path("account/", views.account, name="account"),
    path("account/token/issue/", views.token_issue, name="account-token-issue"),
    path("account/token/revoke/", views.token_revoke, name="account-token-revoke"),
    path("security/", views.security, name="security"),
    path("security/unlock/", views.security_unlock, name="security-unlock"),
]
