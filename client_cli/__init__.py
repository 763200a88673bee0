"""The terminal client ``atout``: connection and reconnection (``net``), the client's model of
the table built from the server's stream (``model``), rendering (``render``), prompts and input
(``decisions``), translations (``i18n``), saved seat tokens (``seats``).

May import: ``protocol`` only. It plays exactly as a third-party client would.
"""
