"""The password forms: Django's, with wrong current passwords counted and reset mails throttled."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import forms as auth_forms

from annotator.accounts import services


class PasswordChangeForm(auth_forms.PasswordChangeForm):
    """Wrong current passwords count like failed sign-ins: past the limit the form refuses every try
    (the right one too) until the cool-off ends, so the form cannot be used to guess the password."""

    def clean_old_password(self) -> str:
        if not services.old_password_guess_allowed(self.user):
            raise forms.ValidationError(
                services.GUESSES_LOCKED.format(minutes=services.lockout_minutes()), code="locked"
            )
        try:
            return str(super().clean_old_password())
        except forms.ValidationError:
            services.count_wrong_old_password(self.user)
            raise


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Sends at most PASSWORD_RESET_MAILS_PER_HOUR mails an hour per address and per client; past that
    the page answers as always (it never says whether an address is known) and nothing is sent."""

    def save(self, *args: Any, **kwargs: Any) -> None:
        request = kwargs.get("request")
        client = request.META.get("REMOTE_ADDR", "") if request is not None else ""
        email = self.cleaned_data["email"]
        if services.reset_mail_allowed("ip", client) and services.reset_mail_allowed("email", email):
            super().save(*args, **kwargs)
