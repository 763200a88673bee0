"""Sampling complete deals consistent with what one seat knows (for Monte Carlo search).

Input is a :class:`~server.ai.knowledge.Knowledge`, itself read from the seat's view only. The
unseen cards are dealt to the other seats (each exactly its current hand size) and to the
hidden pile (the part of another taker's discard that was not shown, or the unseen chien of a
garde sans / garde contre), so that every known fact holds: cards a seat has shown it lacks
(voids, no trumps, trump ceilings) never go to it, shown poignée cards stay with their owner,
chien cards stay with the taker (plain ones possibly in the discard), the discard holds only
plain non-king cards, and a taker who discarded trumps keeps no plain card (R5.3).
"""

from __future__ import annotations

import random

from server.rules.cards import EXCUSE_BIT, PETIT_BIT, TRUMP_MASK
from server.rules.cards import cards_of as _cards

from .knowledge import Knowledge

HIDDEN = 4  # slot number of the hidden pile; slots 0..3 are seats


class Infeasible(ValueError):
    """No deal fits the constraints (a bug upstream: the true deal always fits)."""


class Sampler:
    """Draws deals for ``k.seat``. :meth:`sample` returns ``(hands, hidden)``: the four
    current hands (this seat's own hand included) and the hidden pile's cards."""

    def __init__(self, k: Knowledge) -> None:
        self.me = k.seat
        self.hand = k.hand
        caps = [0, 0, 0, 0, 0]
        for s in range(4):
            if s != k.seat:
                caps[s] = k.hand_sizes[s]
        caps[HIDDEN] = k.hidden_count
        self.caps = caps
        must_any = 0
        for s in range(4):
            must_any |= k.must_hold[s]
        allowed_of: dict[int, int] = {}  # card -> slot bits
        for c in _cards(k.unseen):
            bit = 1 << c
            a = 0
            for s in range(4):
                if s == k.seat or not caps[s]:
                    continue
                if must_any & bit:
                    if k.must_hold[s] & bit:
                        a |= 1 << s
                elif not k.forbidden[s] & bit:
                    a |= 1 << s
            if caps[HIDDEN] and k.hidden_allowed & bit and not must_any & bit:
                a |= 1 << HIDDEN
            allowed_of[c] = a
        self.allowed_of = allowed_of
        # Cards grouped by the slots they may go to, most constrained groups first.
        groups: dict[int, list[int]] = {}
        for c, a in allowed_of.items():
            groups.setdefault(a, []).append(c)
        self.groups = sorted(groups.items(), key=lambda kv: (kv[0].bit_count(), kv[0]))
        if sum(caps) != len(allowed_of):
            raise Infeasible(f"{len(allowed_of)} unseen cards for {sum(caps)} places")
        if not self._feasible({a: len(cs) for a, cs in self.groups}, caps):
            raise Infeasible("no deal fits what this seat knows")
        self.fallbacks = 0
        # R3.1: the deal was not annulled, so nobody was dealt the Petit sec. A sampled deal
        # giving a seat the Petit, no other trump and no Excuse is rejected. Each seat's dealt
        # hand is its sampled hand plus what it played (plus, for another taker after a
        # prise/garde, the discard minus the chien).
        self.dealt_extra = [k.played_by[s] for s in range(4)]
        self.taker_fix = 0
        t = k.taker
        if t >= 0 and t != k.seat and k.contract <= 2:
            self.dealt_extra[t] |= k.discard_known
            self.taker_fix = k.chien
        self.taker = t

    @staticmethod
    def _feasible(counts: dict[int, int], caps: list[int]) -> bool:
        """Hall's condition: every set of slots can hold the cards that may only go there."""
        for subset in range(1, 32):
            need = 0
            for a, n in counts.items():
                if n and not a & ~subset:
                    need += n
            if need:
                room = 0
                for s in range(5):
                    if subset >> s & 1:
                        room += caps[s]
                if need > room:
                    return False
        return True

    def sample(self, rng: random.Random, tries: int = 30) -> tuple[list[int], int]:
        out = None
        for _ in range(tries):
            out = self._try(rng)
            if out is not None and not self._petit_sec(out):
                return out
        if out is None:
            self.fallbacks += 1
            for _ in range(tries):
                out = self._exact(rng)
                if not self._petit_sec(out):
                    break
        return out  # type: ignore[return-value]

    def _petit_sec(self, sample: tuple[list[int], int]) -> bool:
        hands, hidden = sample
        for s in range(4):
            if s == self.me:
                continue
            dealt = hands[s] | self.dealt_extra[s]
            if s == self.taker:
                dealt = (dealt | hidden) & ~self.taker_fix if self.taker_fix else dealt
            if dealt & TRUMP_MASK == PETIT_BIT and not dealt & EXCUSE_BIT:
                return True
        return False

    def _finish(self, slots: list[int]) -> tuple[list[int], int]:
        hands = [slots[0], slots[1], slots[2], slots[3]]
        hands[self.me] = self.hand
        return hands, slots[HIDDEN]

    def _try(self, rng: random.Random) -> tuple[list[int], int] | None:
        cap = self.caps[:]
        slots = [0, 0, 0, 0, 0]
        rnd = rng.random
        for a, cards in self.groups:
            if a & (a - 1) == 0:
                s = a.bit_length() - 1
                if cap[s] < len(cards):
                    return None
                cap[s] -= len(cards)
                for c in cards:
                    slots[s] |= 1 << c
                continue
            opts = [s for s in range(5) if a >> s & 1]
            order = cards[:]
            rng.shuffle(order)
            for c in order:
                total = 0
                for s in opts:
                    total += cap[s]
                if total == 0:
                    return None
                r = rnd() * total
                for s in opts:
                    r -= cap[s]
                    if r < 0 and cap[s]:
                        break
                else:
                    s = next(x for x in reversed(opts) if cap[x])
                cap[s] -= 1
                slots[s] |= 1 << c
        return self._finish(slots)

    def _exact(self, rng: random.Random) -> tuple[list[int], int]:
        """Slower but never fails: each card goes to a random slot that keeps the rest
        feasible (Hall's condition checked on the remaining groups)."""
        cap = self.caps[:]
        slots = [0, 0, 0, 0, 0]
        counts = {a: len(cs) for a, cs in self.groups}
        for a, cards in self.groups:
            order = cards[:]
            rng.shuffle(order)
            for c in order:
                counts[a] -= 1
                opts = [s for s in range(5) if a >> s & 1 and cap[s]]
                rng.shuffle(opts)
                for s in opts:
                    cap[s] -= 1
                    if self._feasible(counts, cap):
                        break
                    cap[s] += 1
                else:
                    raise Infeasible("no deal fits what this seat knows")
                slots[s] |= 1 << c
        return self._finish(slots)
