"""Operations: structured logs (``logs``), Prometheus metrics (``metrics``) and the admin
commands of ``atout-server`` (``admin``: export, scores, backup).

May import: ``server.store``, ``server.rules``, ``server.config``, ``protocol``.
"""
