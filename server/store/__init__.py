"""Persistence: the store (``sqlite``: schema and migrations, deals and scores, the action log,
off the event loop) and the ``journal`` that batches the tables' durable writes.

May import: ``server.rules``.
"""
