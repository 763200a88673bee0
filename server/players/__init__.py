"""Players who come back (issue 12): accounts (``names``, ``passwords``, ``accounts``: register,
login, keys, rate limits), the review of every scored deal (``par``: the same cards played by the
reference bot, and each seat's figures; ``ratings``: openskill), and ``service``, which runs the
reviews off the event loop in order and tells the tables. SQL lives in ``server.store``.

May import: ``server.rules``, ``server.ai``, ``server.store``, ``server.config``, ``protocol``.
"""
