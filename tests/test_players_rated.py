"""A rated table of four registered players plays full deals over real sockets (issue 12,
sections 2-4): every scored deal gets its par (the reference bot with the same cards, the
same par every time), each seat its duplicate score and a new rating; history, profiles and
leaderboards add up to what was played, and all of it survives a restart."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from helpers_server import Client, autoplay, create_table, deal_records, running_server

from server.players.par import par_of
from server.players.ratings import MU0, PROVISIONAL, SIGMA0
from server.store.sqlite import Store

NAMES = ["Ada", "Béa", "Cyd", "Dom"]
DEALS = 4


async def _players(port: int) -> tuple[list[Client], list[str]]:
    keys = []
    for n in NAMES:
        c = await Client.connect(port, n)
        r = await c.request({"type": "register", "name": n, "password": f"{n} password"})
        keys.append(r["key"])
        await c.close()
    out = []
    for n, k in zip(NAMES, keys, strict=True):
        c = await Client.connect(port, n, hello=False)
        w = await c.request({"type": "hello", "version": 1, "name": "x", "key": k})
        assert w["player"]["name"] == n
        out.append(c)
    return out, keys


def _pars(c: Client, tid: str) -> dict[int, dict[str, Any]]:
    return {m["event"]["deal_no"]: m["event"] for m in c.events(tid) if m["event"]["type"] == "par"}


async def test_a_rated_table_of_four_players(tmp_path: Path) -> None:
    db = tmp_path / "rated.db"
    async with running_server(db, seed=11) as srv:
        players, keys = await _players(srv.port)
        tid = await create_table(players[0], deals=DEALS, name="Club night")
        for i, c in enumerate(players):
            await c.join(tid, i)

        async def play(i: int, c: Client) -> None:
            await autoplay(
                c,
                tid,
                random.Random(40 + i),
                lambda m: (
                    m["type"] == "event"
                    and m["event"]["type"] == "table_state"
                    and m["event"]["state"] == "finished"
                ),
                timeout=60,
            )

        await asyncio.gather(*(play(i, c) for i, c in enumerate(players)))
        await srv.reviews.idle()
        records = deal_records(players[0], tid)
        assert sorted(records) == list(range(1, DEALS + 1))
        played = [n for n, r in records.items() if r["result"]["status"] == "played"]
        # every played deal got its par event, after its scores, with the real scores
        for c in players:
            await c.wait_for(lambda m, c=c: len(_pars(c, tid)) == len(played))
        pars = _pars(players[0], tid)
        assert sorted(pars) == played
        # what /metrics tells the host of the reviews
        shown = dict(
            line.split(" ", 1) for line in srv.metrics.render().splitlines() if line[0] != "#"
        )
        assert shown["atout_reviews_total"] == str(len(played))
        assert shown["atout_review_failures_total"] == shown["atout_reviews_given_up_total"] == "0"
        assert shown["atout_review_backlog"] == "0" and shown["atout_review_worker_process"] == "1"
        assert float(shown["atout_review_par_cpu_seconds_total"]) > 0
        ratings: dict[str, list[dict[str, Any]]] = {n: [] for n in NAMES}
        for no in played:
            ev = pars[no]
            real = records[no]["result"]["scores"]
            assert ev["scores"] == real and ev["level"] == "heuristic"
            again = par_of(records[no], "heuristic")
            assert ev["par"] == again["scores"]  # reproducible: same cards, same bot, same par
            assert ev["over_par"] == [a - b for a, b in zip(real, ev["par"], strict=True)]
            for s, r in enumerate(ev["ratings"]):
                assert (
                    r is not None and r["provisional"] and r["deals"] == len(ratings[NAMES[s]]) + 1
                )
                ratings[NAMES[s]].append(r)
        assert not any(c.decode_errors for c in players)
        # the zero-sum pairwise update: at each deal the taker's mu change is minus the
        # defenders' (first deal: everyone at the prior)
        first = pars[played[0]]
        mus = [r["mu"] for r in first["ratings"]]
        assert abs(sum(m - MU0 for m in mus)) < 1e-2
        answers = await _answers(players[0])
        totals = [0.0] * 4
        for rec in records.values():
            totals = [a + b for a, b in zip(totals, rec["result"]["scores"], strict=True)]
        _check(answers, records, pars, totals, ratings, tid)
        for c in players:
            await c.close()
    # a restart: the same answers, from the database
    async with running_server(db) as srv:
        c = await Client.connect(srv.port, "x", hello=False)
        w = await c.request({"type": "hello", "version": 1, "name": "x", "key": keys[0]})
        assert w["player"]["name"] == "Ada"
        again = await _answers(c)
        assert again == answers
        await c.close()
    s = Store(str(db), readonly=True)
    for no in played:
        stored = s.par_of(tid, no)
        assert stored is not None and stored["scores"] == pars[no]["par"]
        assert stored["record"]["result"]["scores"] == stored["scores"]
    s.close()


async def _answers(c: Client) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in NAMES:
        out[f"player {n}"] = await c.request({"type": "player", "name": n.upper()})
        out[f"history {n}"] = await c.request({"type": "history", "name": n, "limit": 3})
        nxt = out[f"history {n}"]["next"]
        out[f"history2 {n}"] = await c.request(
            {"type": "history", "name": n, "limit": 3, "cursor": nxt}
        )
    out["me"] = await c.request({"type": "history"})
    for by in ("rating", "total", "mean"):
        out[by] = await c.request({"type": "leaderboard", "by": by, "min_deals": 0})
    for m in out.values():
        assert m["type"] != "error", m
        m.pop("id")
    return out


def _check(
    answers: dict[str, Any],
    records: dict[int, dict[str, Any]],
    pars: dict[int, dict[str, Any]],
    totals: list[float],
    ratings: dict[str, list[dict[str, Any]]],
    tid: str,
) -> None:
    for s, n in enumerate(NAMES):
        prof = answers[f"player {n}"]["player"]
        assert (prof["name"], prof["kind"], prof["deals"]) == (n, "registered", DEALS)
        assert prof["total"] == totals[s]
        taken = [r for r in records.values() if r["result"].get("taker") == s]
        assert prof["taker"]["deals"] == len(taken)
        assert prof["taker"]["won"] == sum(1 for r in taken if r["result"]["won"])
        over = [pars[no]["over_par"][s] for no in pars]
        assert prof["over_par"]["deals"] == len(over)
        assert abs(prof["over_par"]["mean"] - sum(over) / len(over)) < 1e-3
        last = ratings[n][-1]
        assert prof["rating"]["mu"] == last["mu"] and prof["rating"]["deals"] == len(pars)
        assert prof["rating"]["provisional"] == (len(pars) < PROVISIONAL)
        assert prof["rating"]["sigma"] < SIGMA0
        # history: newest first, paginated, this seat's result in each deal
        h1, h2 = answers[f"history {n}"], answers[f"history2 {n}"]
        assert h1["total"] == DEALS and h1["player"] == {"name": n, "kind": "registered"}
        deals = h1["deals"] + h2["deals"]
        assert [d["deal_no"] for d in deals] == list(range(DEALS, 0, -1))
        assert h2["next"] is None
        for d in deals:
            assert d["table"] == tid and d["seat"] == s and d["table_name"] == "Club night"
            assert d["score"] == records[d["deal_no"]]["result"]["scores"][s]
            if d["deal_no"] in pars:
                assert d["par"] == pars[d["deal_no"]]["par"][s]
                assert d["over_par"] == pars[d["deal_no"]]["over_par"][s]
    assert answers["me"]["player"]["name"] == "Ada"
    board = answers["rating"]["rows"]
    assert {r["name"] for r in board} == set(NAMES)  # no AI seat at this table
    values = [r["rating"]["rating"] for r in board]
    assert values == sorted(values, reverse=True)
    by_total = answers["total"]["rows"]
    assert [r["total"] for r in by_total] == sorted(totals, reverse=True)
    assert all(r["kind"] == "registered" for r in by_total)
    means = [r["mean"] for r in answers["mean"]["rows"]]
    assert means == sorted(means, reverse=True)
    # ranked by rating, each player's total and mean are there too, the same as by total
    figures = {r["name"]: (r["total"], r["mean"]) for r in by_total}
    assert {r["name"]: (r["total"], r["mean"]) for r in board} == figures
