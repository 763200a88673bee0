"""Protocol version constants.

A client names the version it speaks twice, both optional but at least one expected: as the
WebSocket subprotocol ``atout.v1`` and as ``version`` in its ``hello``. The server speaks exactly
the versions in :data:`SUPPORTED_VERSIONS`.
"""

from __future__ import annotations

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)
SUBPROTOCOL = f"atout.v{PROTOCOL_VERSION}"
SUBPROTOCOLS: tuple[str, ...] = tuple(f"atout.v{v}" for v in SUPPORTED_VERSIONS)

#: Largest WebSocket frame (message) the server accepts, in bytes; bigger ones close with 1009.
MAX_FRAME_BYTES = 64 * 1024
