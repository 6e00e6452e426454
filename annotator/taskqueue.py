"""The one way to send background work: a Celery task by name, or run in-process without a broker.

Every enqueuer (services, forms, views, the API) calls `enqueue`; nothing imports `annotator.tasks`, so
the code that asks for work never depends on the code that does it. With REDIS_URL the task is sent to
the broker (`send_task`: by name, to the default queue); without it (`task_always_eager`, the embedded
default) the task runs now, in this process, and its exceptions reach the caller as they would in a
plain function call.

A task sent with `after_response=True` is work the request that sends it does not wait for. Without a
broker, inside a web request, it runs after the response has been sent, in the same thread: the request
keeps a list of such tasks (`request_started`), each task name and args once, in the order sent, and
Django's `request_finished` runs it (`run_after_response`). Under WSGI (`runserver` for `make run`,
gunicorn in the stack) `request_finished` fires when the server closes the response, once its body is
written; Django's test client fires it before it returns, so a test that saves through the client reads
after the work ran. Outside a request (commands, tests that call services, a worker) it runs now. The app
is served over WSGI only: under ASGI the request's thread is not the one its signals run in.

Work in parts that run anywhere and then join goes through `enqueue_chord`: Celery's chord (a group of
part tasks, then one callback given their results), or, without a broker, the parts one after the other
in this process and the callback after them.

Whatever goes wrong on the way to the broker (Redis refused the connection, timed out, the transport
gave up) is one error, `QueueUnavailable`, whose message says that nothing was queued.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from celery import chord, group
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from annotator.celery import app

log = logging.getLogger(__name__)
#: `.deferred`: while a web request is served in this thread, the (task, args) to run after its response;
#: `.serving`: whether this thread serves a web request now (its response, then its `after_response` work).
_request = threading.local()
#: How many requests this process serves now, each counted until its `after_response` work has ended
#: (`wait_until_served`).
_serving = threading.Condition()
_served_now = 0

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


def enqueue(name: str, *args: Any, countdown: float | None = None, after_response: bool = False) -> None:
    """Send task `name` with positional `args` (ids and scalars), or run it now without a broker.

    `countdown` delays a sent task by that many seconds (ignored in-process). `after_response`: without a
    broker and inside a web request, the task runs once the response has been sent (see the module's
    docstring; an exception is then logged, not raised); otherwise it runs now.
    Nobody waits for the result of a task sent here, so none is kept (`ignore_result`): sending then
    needs the broker only, not the result backend's subscription (which, with Redis down, retries for
    20 s before it fails). Raises `QueueUnavailable` when the broker cannot be reached.
    """
    if runs_in_process():
        deferred: list[tuple[str, tuple[Any, ...]]] | None = getattr(_request, "deferred", None)
        if after_response and deferred is not None:
            if (name, args) not in deferred:
                deferred.append((name, args))
            return
        _run(name, args)
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


def _run(name: str, args: tuple[Any, ...]) -> None:
    """Run task `name` now, in this process; its exception reaches the caller."""
    if name not in app.tasks:  # the worker registers tasks at start; in-process, on first use
        app.loader.import_default_modules()
    app.tasks[name].apply(args=args, throw=True)


def in_request() -> bool:
    """Whether this thread serves a web request: its view, or the work it left for after its response
    (which, without a broker, keeps the thread — and the browser's connection to it — from the next
    request until it ends)."""
    return bool(getattr(_request, "serving", False))


def request_started(**kwargs: Any) -> None:
    """Receiver of Django's `request_started`: this thread now serves a request, whose `after_response`
    tasks wait for its end. Tasks left by a request whose end never came run first."""
    global _served_now
    left = getattr(_request, "deferred", None)
    _request.deferred = []
    if not getattr(_request, "serving", False):
        with _serving:
            _served_now += 1
    _request.serving = True
    if left:
        log.warning("running %d task(s) left by the previous request of this thread", len(left))
        _run_all(left)


def run_after_response(**kwargs: Any) -> None:
    """Receiver of Django's `request_finished`: run the request's `after_response` tasks in the order
    sent; each failure is logged and the next task still runs. The list is cleared first, so the tasks
    these tasks send run at once and nothing is left for the thread's next request."""
    deferred = getattr(_request, "deferred", None)
    _request.deferred = None
    global _served_now
    try:
        if deferred:
            _run_all(deferred)
    finally:
        if getattr(_request, "serving", False):
            with _serving:
                _served_now -= 1
                _serving.notify_all()
        _request.serving = False


def wait_until_served(timeout: float) -> bool:
    """Wait until no thread of this process serves a request or runs the work left for after its
    response (a test server's, before its test's data goes); whether that happened within `timeout`."""
    with _serving:
        return _serving.wait_for(lambda: _served_now <= 0, timeout)


def _run_all(tasks: list[tuple[str, tuple[Any, ...]]]) -> None:
    for name, args in tasks:
        try:
            _run(name, args)
        except Exception:
            log.exception("in-process task %s%r, run after the response, failed", name, args)
