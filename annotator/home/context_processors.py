from django.http import HttpRequest

from annotator import access


def roles(request: HttpRequest) -> dict[str, object]:
    """Expose the user's role flags to every template (navigation only; views decide access)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_admin": False, "is_lead": False, "may_create_project": False}
    is_lead = access.is_lead_anywhere(user)
    admin = access.is_admin(user)

    def may_create() -> bool:  # called by the templates that show "New project" only
        return admin or is_lead or user.has_perm("annotator.add_project")

    return {"is_admin": admin, "is_lead": is_lead, "may_create_project": may_create}
