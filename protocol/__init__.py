"""Atout protocol v1: the wire format shared by the server and clients.

``messages`` holds a msgspec Struct for every message, ``errors`` the error and close codes,
``version`` the version constants; ``python -m protocol.schema`` writes the JSON Schema.
Human documentation: docs/PROTOCOL.md. This package imports nothing of the server.
"""

from .errors import CLOSE_DESCRIPTIONS, ERROR_DESCRIPTIONS, CloseCode, ErrorCode
from .version import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    SUBPROTOCOL,
    SUBPROTOCOLS,
    SUPPORTED_VERSIONS,
)

__all__ = [
    "CLOSE_DESCRIPTIONS",
    "ERROR_DESCRIPTIONS",
    "MAX_FRAME_BYTES",
    "PROTOCOL_VERSION",
    "SUBPROTOCOL",
    "SUBPROTOCOLS",
    "SUPPORTED_VERSIONS",
    "CloseCode",
    "ErrorCode",
]
