"""A free TCP port on the loopback interface, for the servers and clusters tests start."""

from __future__ import annotations

import socket

_given: set[int] = set()


def free_port() -> int:
    """A port nothing listens on now, and never one this process was given before: the OS may hand a
    just-closed port out again, and a Ray node given the same port for two components will not start."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _given:
            _given.add(port)
            return port
