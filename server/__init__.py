"""The Atout table server, one folder per layer (the architecture of DESIGN.md).

Lowest first; each layer may import only the layers listed for it (``tests/test_layout.py``
checks it, and that no import cycle exists):

========================  ===================================================  ======================
package                   what lives there                                     may import (ours)
========================  ===================================================  ======================
``server.rules``          the pure rules engine: cards, deal state machine,    nothing
                          legality, scoring, views, records, replay
``server.ai``             bots: ``choose(view, legal) -> action``              rules
``server.config``         the server settings                                  nothing
``server.store``          the store interface, SQLite backend, journal         rules
``server.players``        accounts, names, passwords, keys; par and ratings    rules, ai, store,
                          of every scored deal (the reviews, off the loop)     config, protocol
``server.ops``            logs, metrics, admin commands                        rules, store, config,
                                                                               protocol, players
``server.tables``         the table actor (seats, deal sequence, drivers,      rules, ai, store, ops,
                          broadcasting) and the lobby                          config, protocol
``server.cluster``        several workers on one database                      tables and below
``server.net``            WebSocket and HTTP: handshake, routing, sessions     players, cluster and
                                                                               below
``server.cli``            the ``atout-server`` command                         everything
========================  ===================================================  ======================
"""
