"""The network layer: the WebSocket and HTTP server (``app``) and one client connection
(``session``: rate limit, bounded outgoing queue).

Frames are decoded strictly into :mod:`protocol` structs here and routed to the lobby or to a
table's actor; nothing below this layer sees a socket. May import: ``server.cluster``,
``server.tables``, ``server.store``, ``server.ops``, ``server.config``, ``server.rules``,
``protocol``.
"""
