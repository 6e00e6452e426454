"""The static files storage of production (DEBUG=0): hashed names, a manifest, compressed copies.

The editor is written as native ES modules that name each other by relative path
(`import { state } from "./state.js";`). Served under hashed names, `editor.3f2a….js` would still ask
for `./state.js`, the unhashed copy, which is cached for a short time only and may be from another
release than the module that asked. Django's manifest storage can rewrite those paths to the hashed
names (`support_js_module_import_aggregation`), but switched on for every file it also parses
third-party bundles (django-htmx's extensions import a path that is not a file, and collectstatic
fails), so the rewriting applies here to our own module folders only.
"""

from __future__ import annotations

from django.contrib.staticfiles.storage import ManifestStaticFilesStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage

#: Folders under static/ whose JavaScript files are ES modules importing each other by relative path.
MODULE_GLOBS = ("annotation/*.js",)

# Django's own patterns for `import … from "./x.js";`, `export … from`, `import "./x.js";`, `import()`.
_JS_MODULE_PATTERNS = ManifestStaticFilesStorage._js_module_import_aggregation_patterns[1]  # type: ignore[attr-defined]  # private in the stubs


class ModuleAwareStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """CompressedManifestStaticFilesStorage that also rewrites our ES modules' relative imports."""

    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        *((glob, _JS_MODULE_PATTERNS) for glob in MODULE_GLOBS),
    )
