"""axe-core in the browser tests: the accessibility rules checked on a page as it is shown.

axe.min.js comes from the npm package (package.json; `npm ci` or `make node-install` puts it in
node_modules/). Without it the checks skip with a reason, and fail when REQUIRE_BROWSER=1.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import REPO, unavailable

AXE_JS = REPO / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("critical", "serious")


def axe_violations(page: Any, *, context: str = "document") -> list[dict[str, Any]]:
    """The critical and serious violations axe finds on the page (or inside the `context` selector)."""
    if not AXE_JS.is_file():
        unavailable("REQUIRE_BROWSER", f"{AXE_JS} not found: run `npm ci` (or `make node-install`)")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    target = "document" if context == "document" else repr(context)
    result = page.evaluate(f"axe.run({target}, {{resultTypes: ['violations']}})")
    return [v for v in result["violations"] if v["impact"] in BLOCKING]


def describe(violations: list[dict[str, Any]]) -> str:
    """One line per violation with the first offending elements, for assertion messages."""
    lines = []
    for v in violations:
        nodes = "; ".join(" ".join(n["target"]) for n in v["nodes"][:3])
        lines.append(f"{v['impact']} {v['id']}: {v['help']} — {nodes}")
    return "\n".join(lines)
