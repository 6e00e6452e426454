"""The shape of the code: areas as packages, one way to the task queue, no import cycles, one function
per action on projects, members and accounts.

The import graph is read from the source (every `import` statement, inside functions too), so a cycle
hidden behind a function-level import fails here just like a top-level one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOP_LEVEL_MODULES = {
    "__init__",
    "settings",
    "urls",
    "celery",
    "wsgi",
    "asgi",
    "apps",
    "admin",
    "access",
    "tasks",
    "taskqueue",
}
AREAS = {
    "core",
    "corpus",
    "annotation",
    "evaluation",
    "leadtools",
    "agreement",
    "dashboard",
    "api",
    "home",
    "accounts",
    "projects",
    "demo",
    # Django's own places inside the app
    "models",
    "migrations",
    "management",
    "templatetags",
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules(*packages: str) -> dict[str, Path]:
    return {
        module_name(path): path
        for package in packages
        for path in (REPO / package).rglob("*.py")
        if "migrations" not in path.parts
    }


def imported_names(path: Path, module: str) -> Iterator[str]:
    """Every module an import statement in `path` names (relative imports resolved)."""
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{alias.name}" for alias in node.names)


def import_graph(*packages: str) -> dict[str, set[str]]:
    modules = source_modules(*packages)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for target in imported_names(path, name):
            # `import a.b.c` also runs a and a.b; edges to packages' __init__ count as well
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("package", ["annotator", "metrics"])
def test_no_import_cycles(package):
    graph = import_graph(package)
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle_behind_a_function_level_import(tmp_path, monkeypatch):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def f():\n    from pkg.a import x\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert cycles(import_graph("pkg")) == [["pkg.a", "pkg.b"]]


def test_annotator_modules_live_in_area_packages():
    strays = sorted(
        path.name for path in (REPO / "annotator").glob("*.py") if path.stem not in TOP_LEVEL_MODULES
    )
    folders = sorted(
        path.name
        for path in (REPO / "annotator").iterdir()
        if path.is_dir() and path.name not in AREAS and not path.name.startswith("__")
    )
    assert strays == [] and folders == []


def test_nothing_imports_the_celery_entry_points():
    """Work is sent by task name through annotator.taskqueue; annotator.tasks is only for the worker."""
    importers = sorted(
        name
        for name, targets in import_graph("annotator").items()
        if "annotator.tasks" in targets and name != "annotator.tasks"
    )
    assert importers == []


def test_metrics_never_imports_django_or_annotator():
    offenders = sorted(
        f"{name} imports {target}"
        for name, path in source_modules("metrics").items()
        for target in imported_names(path, name)
        if target.split(".")[0] in {"django", "annotator", "rest_framework", "celery"}
    )
    assert offenders == []


#: The layers of the app, from the bottom up. A module may import modules of its own layer and of the
#: layers below, never one above; the package root `annotator` (the Celery app's bootstrap) is no layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("settings", "models"),
    ("core",),
    ("celery", "taskqueue"),
    ("access",),
    ("agreement",),
    ("accounts",),
    ("projects",),
    ("corpus",),
    ("annotation",),
    ("evaluation",),
    ("leadtools",),
    ("dashboard",),
    ("api", "home", "demo", "management", "templatetags", "tasks", "urls", "apps", "admin", "wsgi", "asgi"),
)
LAYER_OF = {area: level for level, areas in enumerate(LAYERS) for area in areas}
#: Imports still against the layer order, `importer -> imported` with the reason each stays; the list
#: only shrinks (code moves to where it belongs).
IMPORTS_AGAINST_THE_LAYERS: dict[str, str] = {}


def area_of(module: str) -> str | None:
    """`annotator.corpus.exports.csv` → `corpus`, `annotator.taskqueue` → `taskqueue`; None for the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def imports_against_the_layers(graph: dict[str, set[str]]) -> list[str]:
    """`importer -> imported` for every import from a layer to a layer above it."""
    found = []
    for name, targets in graph.items():
        low = area_of(name)
        for target in targets:
            high = area_of(target)
            if low and high and LAYER_OF[high] > LAYER_OF[low]:
                found.append(f"{name} -> {target}")
    return sorted(found)


def test_every_area_has_a_layer():
    areas = {area_of(name) for name in source_modules("annotator")} - {None}
    assert sorted(areas - set(LAYER_OF)) == []


def test_imports_follow_the_layer_order():
    """An import from an area to one above it fails, naming both modules (imports inside functions
    count); the listed ones may only leave the list."""
    found = imports_against_the_layers(import_graph("annotator"))
    new = [edge for edge in found if edge not in IMPORTS_AGAINST_THE_LAYERS]
    gone = sorted(set(IMPORTS_AGAINST_THE_LAYERS) - set(found))
    assert not new, "imports against the layer order (docs/architecture.md): " + "; ".join(new)
    assert not gone, f"no longer against the layer order, drop from IMPORTS_AGAINST_THE_LAYERS: {gone}"


def test_the_layer_rule_sees_a_deferred_import_upwards(tmp_path, monkeypatch):
    package = tmp_path / "annotator"
    (package / "core").mkdir(parents=True)
    (package / "api").mkdir()
    for init in (package, package / "core", package / "api"):
        (init / "__init__.py").write_text("")
    (package / "api" / "views.py").write_text("from annotator.core import text\n")
    (package / "core" / "text.py").write_text("def f():\n    from annotator.api import views\n")
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert imports_against_the_layers(import_graph("annotator")) == [
        "annotator.core.text -> annotator.api",
        "annotator.core.text -> annotator.api.views",
    ]


def structure() -> dict[str, object]:
    """The figures of the structure: modules per area, imports between areas (a module importing
    another area counts once per area) and the imports against the layer order."""
    graph = import_graph("annotator")
    modules: dict[str, int] = {}
    between: dict[str, set[str]] = {}
    for name, targets in graph.items():
        area = area_of(name) or "annotator"
        modules[area] = modules.get(area, 0) + 1
        for target in targets:
            other = area_of(target)
            if other and other != area:
                between.setdefault(f"{area} -> {other}", set()).add(name)
    against = imports_against_the_layers(graph)
    return {
        "modules per area": dict(sorted(modules.items())),
        "area arrows": len(between),
        "area arrows both ways": sorted(
            arrow for arrow in between if " -> ".join(reversed(arrow.split(" -> "))) in between
        ),
        "module -> area imports": sum(len(names) for names in between.values()),
        "imports against the layers": len(against),
        "modules importing upwards": len({edge.split(" -> ")[0] for edge in against}),
        "against": against,
    }


#: Modules still raising PermissionDenied themselves, each with the count it raises; the list only
#: shrinks (a decision moved into access.py leaves it).
PERMISSION_DECISIONS_OUTSIDE_ACCESS = {"annotator/annotation/views.py": 2}


def test_permission_decisions_are_taken_in_access():
    """Who may see or change what is decided in `annotator/access.py`; views call it."""
    found = {}
    for path in sorted((REPO / "annotator").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if name == "annotator/access.py" or "/migrations/" in name:
            continue
        count = path.read_text().count("raise PermissionDenied")
        if count:
            found[name] = count
    extra = {
        name: count
        for name, count in found.items()
        if count > PERMISSION_DECISIONS_OUTSIDE_ACCESS.get(name, 0)
    }
    assert not extra, f"permission decided outside annotator/access.py: {extra}"


#: Modules outside `annotator.agreement` that still import its internals, with what they import. Everything
#: else reaches agreement through the three functions `annotator/agreement/__init__.py` names.
AGREEMENT_INTERNALS_STILL_IMPORTED = {
    "annotator.api.projects": {"current"},
    "annotator.corpus.exports.native": {"document"},
    "annotator.corpus.exports.report": {"current", "statistics"},
    "annotator.dashboard.comparison": {"statistics"},
    "annotator.dashboard.tables": {"results"},
    "annotator.dashboard.views": {
        "computation",
        "current",
        "kappa_c_chunks",
        "retention",
        "statistics",
    },
    "annotator.demo.loader": {"computation"},
    "annotator.evaluation.reevaluation": {"document"},
    "annotator.evaluation.stats": {"document"},
    "annotator.leadtools.disagreement": {"document", "results"},
    "annotator.leadtools.explorer_rows": {"document"},
    "annotator.leadtools.reannotation": {"computation", "current", "results"},
    "annotator.management.commands.load_demo": {"changes"},
    "annotator.management.commands.recompute_agreement": {"computation"},
    "annotator.tasks": {"computation", "kappa_c_chunks", "retention", "scheduling", "statistics"},
}


def test_agreement_is_reached_through_its_front_door():
    """Another area importing an agreement module other than the package itself fails, except the
    listed ones (which may only shrink)."""
    front = "annotator.agreement"
    found: dict[str, set[str]] = {}
    for name, path in source_modules("annotator").items():
        if name == front or name.startswith(f"{front}."):
            continue
        for target in imported_names(path, name):
            if target.startswith(f"{front}.") and target.count(".") == 2:
                internal = target.split(".")[2]
                if internal not in {"record_change", "current_figures", "rebuild"}:
                    found.setdefault(name, set()).add(internal)
    assert found == AGREEMENT_INTERNALS_STILL_IMPORTED


#: The places that create projects, memberships and accounts: one function per action
#: (`annotator.accounts.services.create_account` / `account_without_password`,
#: `annotator.projects.services.create_project`, `annotator.projects.roles.grant_role`).
ACTION_HOMES = ("annotator/accounts/", "annotator/projects/")
CREATING_METHODS = {"create", "get_or_create", "update_or_create", "bulk_create"}
#: Files that still create one of them themselves, with what they create and why (none today); the
#: list only shrinks.
CREATED_OUTSIDE_THE_SERVICES: dict[str, set[str]] = {}


def _creations(path: Path) -> set[str]:
    """`Project`/`Membership` rows created through the ORM (or built for bulk_create), and accounts made
    by the user manager or built as `User(…)`, in one file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in {"Project", "Membership", "User"}:
            found.add(f"{func.id}(…)")
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr in {"create_user", "create_superuser"}:
            found.add(f"….{func.attr}")
        manager = func.value
        if (
            func.attr in CREATING_METHODS
            and isinstance(manager, ast.Attribute)
            and manager.attr == "objects"
            and isinstance(manager.value, ast.Name)
            and manager.value.id in {"Project", "Membership"}
        ):
            found.add(f"{manager.value.id}.objects.{func.attr}")
    return found


def test_projects_members_and_accounts_are_created_by_their_services_only():
    """Nothing outside annotator/projects/ and annotator/accounts/ creates a project, a membership or an
    account (the pages, the API, the commands, the demo, the benches and the test world call the
    services), except the listed files."""
    found = {}
    for folder in ("annotator", "bench", "tests"):
        for path in sorted((REPO / folder).rglob("*.py")):
            name = path.relative_to(REPO).as_posix()
            if (
                name.startswith(ACTION_HOMES)
                or "/migrations/" in name
                or name == "tests/test_architecture.py"
            ):
                continue
            creations = _creations(path)
            if creations:
                found[name] = creations
    assert found == CREATED_OUTSIDE_THE_SERVICES


def test_the_creation_rule_sees_each_way_of_creating(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "Project.objects.create(name='x')\n"
        "Membership.objects.get_or_create(project=p, user=u, role='lead')\n"
        "Membership.objects.bulk_create([Membership(project=p, user=u, role='lead')])\n"
        "get_user_model().objects.create_user('x', password='y')\n"
        "User(username='x').save()\n"
    )
    assert _creations(sample) == {
        "Project.objects.create",
        "Membership.objects.get_or_create",
        "Membership.objects.bulk_create",
        "Membership(…)",
        "….create_user",
        "User(…)",
    }


#: Functions still longer than MAX_FUNCTION_LINES, with their length; the list only shrinks.
LONG_FUNCTIONS = {}
MAX_FUNCTION_LINES = 60


def test_functions_are_short():
    """No function in annotator/ is longer than 60 lines, but the listed ones, which may not grow."""
    import ast

    found = {}
    for path in sorted((REPO / "annotator").rglob("*.py")):
        name = path.relative_to(REPO).as_posix()
        if "/migrations/" in name:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found[f"{name}:{node.name}"] = length
    too_long = {key: n for key, n in found.items() if n > LONG_FUNCTIONS.get(key, MAX_FUNCTION_LINES)}
    assert not too_long, f"functions over {MAX_FUNCTION_LINES} lines: {too_long}"


if __name__ == "__main__":  # python tests/test_architecture.py prints the figures
    for key, value in structure().items():
        print(
            f"{key}:",
            *(value if isinstance(value, list) else [value]),
            sep="\n  " if isinstance(value, list) else " ",
        )
