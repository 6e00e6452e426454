from django.apps import AppConfig
from django.core import checks

from annotator.core.checks import returning_supported


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Paraphrase annotation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        checks.register(returning_supported)
