from django.http import HttpRequest

from annotator import access


def roles(request: HttpRequest) -> dict[str, object]:
    """Expose the user's role flags to every template (navigation only; views decide access)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"is_admin": False, "is_lead": False}
    return {"is_admin": access.is_admin(user), "is_lead": access.is_lead_anywhere(user)}
