from django.apps import AppConfig
from django.core import checks

from annotator.core.checks import returning_supported


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Paraphrase annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import pre_save

        from annotator.accounts.services import revoke_tokens_if_password_changed

        checks.register(returning_supported)
        pre_save.connect(
            revoke_tokens_if_password_changed,
            sender=get_user_model(),
            dispatch_uid="revoke-tokens-on-password",
        )
