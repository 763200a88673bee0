"""Tables: the table actor and the lobby that holds the open tables and seat tokens.

A table is built in layers, one class per module, each deriving from the one below:
``base`` (state, durable writes) -> ``broadcast`` (events, snapshots) -> ``drivers`` (turns, AI,
timers) -> ``sequence`` (deals, series, actions, scores) -> ``seating`` (seats, tokens,
connections coming and going) -> ``table`` (the actor; rebuilding after a restart).
``seats`` holds the seat and option records and :class:`~server.tables.seats.Connection`, what a
table needs of a client connection (so this layer never imports the network layer).
May import: ``server.rules``, ``server.ai``, ``server.store``, ``server.ops``, ``server.config``,
``protocol``.
"""
