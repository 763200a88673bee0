"""Several worker processes on one database: registration and heartbeat, table and token
ownership, ``wrong_worker`` redirects, the merged lobby listing (``worker``), and the
``--workers`` supervisor and its options (``cli``).

May import: ``server.tables``, ``server.store``, ``server.ops``, ``server.config``,
``server.rules``, ``protocol``.
"""
