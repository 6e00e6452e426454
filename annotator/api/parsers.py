"""The API's JSON parser: the limits of `annotator.corpus.limits` on every request body.

Django refuses a body declared larger than `DATA_UPLOAD_MAX_MEMORY_SIZE` before reading it (answered
400 `{"body": [...]}` by `ServiceErrors`); one nested too deeply, with an integer beyond 64 bits or a string beyond `MAX_STRING` characters is
answered 400 `{"<field>": ["<message>"]}` before any view or serializer sees it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser

from annotator.corpus.limits import JsonLimitError, load_json


class LimitedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        parser_context = parser_context or {}
        encoding = parser_context.get("encoding", "utf-8")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise ValidationError({"body": [f"larger than {limit} bytes"]})
        try:
            return load_json(data.decode(encoding))
        except UnicodeDecodeError as exc:
            raise ValidationError({"body": [f"not {encoding}: {exc.reason} at byte {exc.start}"]}) from exc
        except JsonLimitError as exc:
            where = f" (line {exc.line})" if exc.line else ""
            raise ValidationError({exc.field: [exc.message + where]}) from exc
        except json.JSONDecodeError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
