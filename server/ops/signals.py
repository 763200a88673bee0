"""The signals that stop a process of the server cleanly (a lone server, a cluster's
supervisor and its workers)."""

from __future__ import annotations

import signal


def stop_signals() -> tuple[signal.Signals, ...]:
    """The signals that stop a server cleanly: SIGTERM, SIGINT, and SIGHUP where there is one
    (closing the terminal or ssh session of a foreground server sent it, which killed the
    server at once: no clean stop, as after a crash), unless the server was started with
    SIGHUP ignored (``nohup``): it must then outlive its terminal, as it did."""
    hup = getattr(signal, "SIGHUP", None)
    if hup is None or signal.getsignal(hup) is signal.SIG_IGN:
        return (signal.SIGTERM, signal.SIGINT)
    return (signal.SIGTERM, signal.SIGINT, hup)
