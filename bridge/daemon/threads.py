"""Blocking work (reading, planning, writing) run off the daemon's event loop, on daemon threads."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

Result = TypeVar("Result")


async def in_daemon_thread(function: Callable[..., Result], *args: Any) -> Result:
    """Run blocking work (reading, planning) off the event loop, on a daemon thread.

    Why not `run_in_executor`: `asyncio.run` joins the default executor's threads on exit, so
    Ctrl-C/SIGTERM during a long plan (a 2000-step log replay) would wait for it to finish. A
    daemon thread is simply abandoned at exit; its result, if any, is dropped.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Result] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # the awaiting task was cancelled (shutdown)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            outcome: tuple[Any, BaseException | None] = (function(*args), None)
        except BaseException as exc:  # handed to the awaiting task, which re-raises it
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # the loop is already closed: nobody is waiting any more
            loop.call_soon_threadsafe(settle, *outcome)

    name = f"adjutant-{getattr(function, '__name__', 'work')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await future
