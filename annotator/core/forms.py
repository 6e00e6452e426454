"""What every form of the app shares."""

from __future__ import annotations

from typing import Any


class OwnIds:
    """A form whose element ids carry its own prefix (`id_<ids>_<field>`), so that two forms on one page
    never share an id and a label always points at its own control; the field names (what the server
    reads) stay the same. Put it before `forms.Form` in the bases and set `ids`."""

    ids = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.ids:
            kwargs.setdefault("auto_id", f"id_{self.ids}_%s")
        super().__init__(*args, **kwargs)
