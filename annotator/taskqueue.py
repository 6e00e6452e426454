"""The one way to send background work: a Celery task by name, or run in-process without a broker.

Every enqueuer (services, forms, views, the API) calls `enqueue`; nothing imports `annotator.tasks`, so
the code that asks for work never depends on the code that does it. With REDIS_URL the task is sent to
the broker (`send_task`: by name, to the default queue); without it (`task_always_eager`, the embedded
default) the task runs now, in this process, and its exceptions reach the caller as they would in a
plain function call.

Work in parts that run anywhere and then join goes through `enqueue_chord`: Celery's chord (a group of
part tasks, then one callback given their results), or, without a broker, the parts one after the other
in this process and the callback after them.

Whatever goes wrong on the way to the broker (Redis refused the connection, timed out, the transport
gave up) is one error, `QueueUnavailable`, whose message says that nothing was queued.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import chord, group
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from annotator.celery import app

log = logging.getLogger(__name__)

#: Errors that mean "the broker (or the Redis cache beside it) could not be reached".
BROKER_ERRORS: tuple[type[BaseException], ...] = (
    ConnectionError,
    OSError,
    BrokerOperationalError,
    RedisConnectionError,
    RedisTimeoutError,
)


class QueueUnavailable(Exception):
    """The task queue could not be reached; nothing was queued."""

    def __init__(self, task: str, cause: BaseException) -> None:
        self.task, self.cause = task, cause
        super().__init__(
            f"The task queue is unreachable ({cause.__class__.__name__}); nothing was queued ({task})."
        )


def runs_in_process() -> bool:
    """Whether tasks run in the calling process (no broker configured: the embedded default)."""
    return bool(app.conf.task_always_eager)


def enqueue(name: str, *args: Any, countdown: float | None = None) -> None:
    """Send task `name` with positional `args` (ids and scalars), or run it now without a broker.

    `countdown` delays a sent task by that many seconds (ignored in-process, where the task runs now).
    Nobody waits for the result of a task sent here, so none is kept (`ignore_result`): sending then
    needs the broker only, not the result backend's subscription (which, with Redis down, retries for
    20 s before it fails). Raises `QueueUnavailable` when the broker cannot be reached.
    """
    if runs_in_process():
        if name not in app.tasks:  # the worker registers tasks at start; in-process, on first use
            app.loader.import_default_modules()
        app.tasks[name].apply(args=args, throw=True)
        return
    try:
        app.send_task(name, args=args, countdown=countdown, ignore_result=True)
    except BROKER_ERRORS as exc:
        log.warning("could not enqueue %s%r: %s", name, args, exc)
        raise QueueUnavailable(name, exc) from exc


def enqueue_chord(part: str, parts: list[tuple[Any, ...]], callback: str, *args: Any) -> None:
    """Send task `part` once per args tuple of `parts` as a Celery chord whose callback `callback`
    receives the list of their results (in `parts`' order) and then `args`; without a broker run them now,
    in this process, in that order (an exception reaches the caller). Nothing is sent for no parts.

    Raises `QueueUnavailable` when the broker cannot be reached."""
    if not parts:
        return
    if runs_in_process():
        if part not in app.tasks or callback not in app.tasks:
            app.loader.import_default_modules()
        results = [app.tasks[part].apply(args=a, throw=True).get() for a in parts]
        app.tasks[callback].apply(args=(results, *args), throw=True)
        return
    try:
        chord(
            group(app.signature(part, args=a) for a in parts), app.signature(callback, args=args)
        ).apply_async()
    except BROKER_ERRORS as exc:
        log.warning("could not enqueue %s × %d then %s%r: %s", part, len(parts), callback, args, exc)
        raise QueueUnavailable(callback, exc) from exc
