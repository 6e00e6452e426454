"""How the management commands name an existing project: `--project ID|NAME` (an id first, then a name)."""

from __future__ import annotations

from django.core.management.base import CommandError, CommandParser

from annotator.models import Project


def add_project_argument(parser: CommandParser, *, required: bool = True) -> None:
    """The `--project ID|NAME` option of a command that works on one existing project."""
    parser.add_argument("--project", required=required, help="The project's id or name.")


def project_named(key: str) -> Project:
    """The project whose id (when `key` is a number) or else whose name is `key`; a CommandError saying
    which key matched nothing."""
    project = Project.objects.filter(pk=int(key)).first() if key.isdigit() else None
    project = project or Project.objects.filter(name=key).first()
    if project is None:
        raise CommandError(f"no project with id or name {key!r}")
    return project
