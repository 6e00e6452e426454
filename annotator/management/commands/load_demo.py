"""Load the demo corpus, demo users and their annotations (idempotent; --reset reloads)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from annotator.agreement import changes as recompute
from annotator.demo import loader as demo
from annotator.models import Project


class Command(BaseCommand):
    help = "Create the demo projects (paraphrase types and substitution evaluation) with demo users."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--reset", action="store_true", help="Delete the demo projects first and reload.")
        parser.add_argument("--quiet-users", action="store_true", help="Do not print the demo users.")

    def handle(self, *args: Any, reset: bool, quiet_users: bool, **options: Any) -> None:
        if reset:
            Project.objects.filter(name__in=demo.PROJECT_NAMES).delete()
        with recompute.batched(), transaction.atomic():
            created = demo.load_demo()
        if created:
            self.stdout.write(self.style.SUCCESS(f"Loaded demo projects: {', '.join(created)}"))
        else:
            self.stdout.write("Demo projects already present (use --reset to reload).")
        demo.recompute_demo_agreement()
        if not quiet_users:
            self.stdout.write("\nDemo users (username / password / role):")
            for username, password, role in demo.USERS:
                self.stdout.write(f"  {username:<8} {password:<16} {role}")
            self.stdout.write("")
