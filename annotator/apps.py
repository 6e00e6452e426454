from django.apps import AppConfig
from django.core import checks

from annotator.core.checks import returning_supported


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Paraphrase annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.core.signals import request_finished, request_started
        from django.db import close_old_connections
        from django.db.models.signals import post_delete, post_save, pre_save

        from annotator import taskqueue
        from annotator.accounts.services import revoke_tokens_if_password_changed
        from annotator.agreement import rebuild
        from annotator.models import Membership, Project

        def annotators_changed(sender: type, instance: Membership, **kwargs: object) -> None:
            """Who counts as an annotator decides whose labels the agreement sums hold (not when the
            whole project is being deleted)."""
            origin = kwargs.get("origin")
            if getattr(origin, "model", type(origin)) is Project:
                return
            if not kwargs.get("raw") and instance.role == Membership.Role.ANNOTATOR:
                rebuild(instance.project_id)

        # without a broker, the tasks a request asks to run after its response (`taskqueue`)
        request_started.connect(taskqueue.request_started, dispatch_uid="taskqueue-request-started")
        request_finished.connect(taskqueue.run_after_response, dispatch_uid="taskqueue-after-response")
        # Django closes a request's database connections when it ends: after these tasks, which use them
        request_finished.disconnect(close_old_connections)
        request_finished.connect(close_old_connections)
        post_save.connect(annotators_changed, sender=Membership, dispatch_uid="agreement-sums-members")
        post_delete.connect(annotators_changed, sender=Membership, dispatch_uid="agreement-sums-members")
        checks.register(returning_supported)
        pre_save.connect(
            revoke_tokens_if_password_changed,
            sender=get_user_model(),
            dispatch_uid="revoke-tokens-on-password",
        )
