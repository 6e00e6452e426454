"""Every state change of the workbench, as plain functions usable from views, the API, commands and tests."""

from .annotations import ConflictError

__all__ = ["ConflictError"]
