"""Backup and restore of a whole deployment: the database and the media files, in one tar archive.

`manage.py backup FILE` and `manage.py restore FILE` call these. Both are safe while the app runs:

- PostgreSQL: `pg_dump --format=custom` reads one consistent snapshot (a repeatable-read transaction),
  so a backup taken during saves holds every save committed before it started and none half-done;
  `pg_restore --single-transaction --exit-on-error` restores into an empty database, all or nothing.
- SQLite: the online backup API (`sqlite3.Connection.backup`) copies the database page by page under
  SQLite's own locking; a write in between restarts the copy, so the copy is one consistent state.

The archive holds `manifest.json` (what, when, which vendor, the latest migration of each app and the
row count of every table), the database (`database.pgdump` or `database.sqlite3`) and `media/` (the
uploads and exports under MEDIA_ROOT). Media files are read after the database: a job that finishes in
between leaves a file the restored database does not mention, never the reverse of a row without it.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

FORMAT = "workbench-backup/1"


class BackupError(Exception):
    """A backup or restore that cannot proceed; the message says why and what to do."""


def _postgres_url() -> str:
    db = connection.settings_dict
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    return f"postgresql://{user}{password}@{host}:{port}/{db['NAME']}"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise BackupError(
            f"{name} not found: install the PostgreSQL client (apt-get install postgresql-client)"
        )
    return path


def _table_counts(cursor: Any = None) -> dict[str, int]:
    if cursor is None:
        with connection.cursor() as cursor:
            return _table_counts(cursor)
    counts = {}
    for table in sorted(connection.introspection.table_names(cursor)):
        cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
        counts[table] = cursor.fetchone()[0]
    return counts


def _sqlite_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        counts = {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    db.close()
    return {t: n for t, n in sorted(counts.items()) if t != "sqlite_sequence"}


def _migrations() -> dict[str, str]:

    latest: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).applied_migrations():
        latest[app] = max(latest.get(app, ""), name)
    return latest


def _dump_database(workdir: Path) -> tuple[Path, dict[str, int]]:
    """The database file in `workdir` and the row count of every table in it (counted in the same
    snapshot the dump reads, so a restore can be checked against it)."""
    if connection.vendor == "postgresql":
        target = workdir / "database.pgdump"
        cmd = [_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges", f"--file={target}"]
        with connection.cursor() as cursor:
            # One repeatable-read transaction exports its snapshot; pg_dump reads that very snapshot.
            cursor.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                cursor.execute("SELECT pg_export_snapshot()")
                snapshot = cursor.fetchone()[0]
                counts = _table_counts(cursor)
                result = subprocess.run(
                    [*cmd, f"--snapshot={snapshot}", _postgres_url()], capture_output=True, text=True
                )
            finally:
                cursor.execute("ROLLBACK")
        if result.returncode != 0:
            raise BackupError(f"pg_dump failed: {result.stderr.strip()}")
        return target, counts
    if connection.vendor == "sqlite":
        target = workdir / "database.sqlite3"
        connection.ensure_connection()
        with sqlite3.connect(target) as copy:
            connection.connection.backup(copy)
        copy.close()
        return target, _sqlite_counts(target)
    raise BackupError(f"backup of a {connection.vendor} database is not supported")


def backup(path: Path) -> dict[str, Any]:
    """Write the database and the media files to the tar archive `path`; returns its manifest."""
    media = Path(settings.MEDIA_ROOT)
    with tempfile.TemporaryDirectory(prefix="workbench-backup-") as tmp:
        workdir = Path(tmp)
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "vendor": connection.vendor,
            "migrations": _migrations(),
        }
        database, manifest["tables"] = _dump_database(workdir)
        partial = path.with_name(path.name + ".partial")
        with tarfile.open(partial, "w") as archive:
            _add_bytes(archive, "manifest.json", json.dumps(manifest, indent=1).encode())
            archive.add(database, arcname=database.name)
            if media.is_dir():
                archive.add(media, arcname="media")
        os.replace(partial, path)  # never a half-written archive under the name asked for
    return manifest


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(dt.datetime.now().timestamp())
    archive.addfile(info, io.BytesIO(data))


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        with tarfile.open(path) as archive:
            manifest = json.load(archive.extractfile("manifest.json"))  # type: ignore[arg-type]
    except (OSError, tarfile.TarError, KeyError, ValueError) as exc:
        raise BackupError(f"{path}: not a workbench backup ({exc})") from exc
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{path}: unknown backup format {manifest.get('format')!r}")
    return manifest


def _database_is_empty() -> bool:
    with connection.cursor() as cursor:
        return not connection.introspection.table_names(cursor)


def restore(path: Path) -> dict[str, Any]:
    """Restore the archive into the configured database, which must be empty (no tables), and its
    media files into MEDIA_ROOT. Returns the manifest; raises BackupError when nothing was changed."""
    manifest = read_manifest(path)
    if manifest["vendor"] != connection.vendor:
        raise BackupError(
            f"{path}: a {manifest['vendor']} backup cannot be restored into {connection.vendor}; "
            "use export_corpus/import_corpus --format native to move projects between databases"
        )
    if not _database_is_empty():
        raise BackupError(
            "the database is not empty: restore into a new, empty database "
            "(PostgreSQL: createdb NAME; SQLite: a path that does not exist yet) and point DATABASE_URL at it"
        )
    with tempfile.TemporaryDirectory(prefix="workbench-restore-") as tmp, tarfile.open(path) as archive:
        workdir = Path(tmp)
        archive.extractall(workdir, filter="data")
        _restore_database(workdir)
        media = workdir / "media"
        if media.is_dir():
            shutil.copytree(media, settings.MEDIA_ROOT, dirs_exist_ok=True)
    restored = _table_counts()
    if restored != manifest["tables"]:
        differ = {t: (n, restored.get(t)) for t, n in manifest["tables"].items() if restored.get(t) != n}
        raise BackupError(f"restored row counts differ from the backup's: {differ}")
    return manifest


def _restore_database(workdir: Path) -> None:
    if connection.vendor == "postgresql":
        cmd = [
            _tool("pg_restore"),
            "--no-owner",
            "--no-privileges",
            "--single-transaction",
            "--exit-on-error",
        ]
        connection.close()
        result = subprocess.run(
            [*cmd, f"--dbname={_postgres_url()}", str(workdir / "database.pgdump")],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise BackupError(f"pg_restore failed (nothing restored): {result.stderr.strip()}")
        return
    connection.ensure_connection()
    with sqlite3.connect(workdir / "database.sqlite3") as source:
        source.backup(connection.connection)
    source.close()
