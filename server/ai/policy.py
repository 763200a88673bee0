"""Card play by club principles, on bitmasks: the ``heuristic`` bot's play and the rollout policy
of the ``strong`` bot.

:func:`choose_card` reads a :class:`~server.ai.kernel.Pos`. For ``me`` the hand is exact; for the
other seats ``p.hands`` holds what they *may* hold. In a rollout (perfect information) those are
the real hands; for the heuristic bot they are the unseen cards minus what each seat has shown it
lacks (voids, trump ceilings). A seat that may hold the led suit is assumed to follow.

Principles (issue 4): defenders cash sure winners, make the taker trump, never return the taker's
suit, charge points on a partner's sure trick, keep the Petit safe (play it under a partner's sure
trick); the taker draws trumps when long in them, cashes masters, shortens short suits, keeps the
Petit for the end when no trump is left outside; everyone plays the Excuse before the last trick
and uses it to save a costly card.
"""

from __future__ import annotations

from server.rules.cards import (
    EXCUSE,
    EXCUSE_BIT,
    HALF_POINTS,
    MONDE,
    PETIT,
    PETIT_BIT,
    SUIT_MASKS,
    SUIT_OF,
    TRUMP_MASK,
    TRUMP_SUIT,
)
from server.rules.cards import cards_of as _cards

from .kernel import Pos, legal_mask

PLAIN_MASK = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2] | SUIT_MASKS[3]
# Cards above c in its own suit (plain) or trumps above c (trump).
ABOVE_SAME: tuple[int, ...] = tuple(
    (SUIT_MASKS[SUIT_OF[c]] if SUIT_OF[c] < 4 else TRUMP_MASK) & ~((1 << (c + 1)) - 1)
    if SUIT_OF[c] < 5
    else 0
    for c in range(78)
)
SUIT_MASK_OF: tuple[int, ...] = (*SUIT_MASKS, TRUMP_MASK, EXCUSE_BIT)


def _hi(m: int) -> int:
    return m.bit_length() - 1


def _lo(m: int) -> int:
    return (m & -m).bit_length() - 1


def _cheapest(cands: int, hand: int) -> int:
    """The card of ``cands`` that costs least to give away: fewest points, plain before trumps,
    from the shortest suit (voids for later trumping), lowest rank. Never the Excuse unless alone."""
    best = -1
    best_key: tuple[int, int, int, int] = (99, 9, 99, 99)
    for c in _cards(cands & ~EXCUSE_BIT):
        s = SUIT_OF[c]
        if s == TRUMP_SUIT:
            # The Petit is an oudler: giving it away costs much more than its card points.
            key = (20 if c == PETIT else 1, 1, 0, c)
        else:
            key = (HALF_POINTS[c], 0, (hand & SUIT_MASKS[s]).bit_count(), c)
        if key < best_key:
            best_key = key
            best = c
    return best if best >= 0 else EXCUSE


def _charge(cands: int, hand: int) -> int:
    """The card worth most to put on a trick the team surely wins: the Petit first (saved),
    then the most points, plain before trumps."""
    if cands & PETIT_BIT:
        return PETIT
    plain = cands & PLAIN_MASK
    if plain:
        best = -1
        best_key: tuple[int, int, int] = (-1, 0, 0)
        for c in _cards(plain):
            # most points; among spot cards the shortest suit, then the lowest
            key = (HALF_POINTS[c], -(hand & SUIT_MASKS[SUIT_OF[c]]).bit_count(), -c)
            if key > best_key:
                best_key = key
                best = c
        return best
    trumps = cands & TRUMP_MASK & ~(1 << MONDE)
    if trumps:
        return _lo(trumps)
    return _lo(cands & ~EXCUSE_BIT) if cands & ~EXCUSE_BIT else EXCUSE


def _threats(p: Pos, opps: list[int], lead: int) -> tuple[int, int]:
    """(highest plain card of the led suit, highest trump) the opponents still to play may use."""
    plain_t = -1
    trump_t = -1
    hands = p.hands
    if lead == TRUMP_SUIT:
        for s in opps:
            t = hands[s] & TRUMP_MASK
            if t:
                trump_t = max(trump_t, _hi(t))
        return plain_t, trump_t
    sm = SUIT_MASKS[lead]
    for s in opps:
        h = hands[s]
        f = h & sm
        if f:
            plain_t = max(plain_t, _hi(f))
        else:
            t = h & TRUMP_MASK
            if t:
                trump_t = max(trump_t, _hi(t))
    return plain_t, trump_t


def _others(p: Pos, me: int) -> int:
    h = p.hands
    return (h[0] | h[1] | h[2] | h[3]) & ~h[me]


def choose_card(p: Pos, me: int) -> int:
    """The card ``me`` (whose turn it is) plays."""
    hand = p.hands[me]
    legal = legal_mask(hand, p.lead, p.hi)
    if not legal & (legal - 1):
        return _lo(legal)
    tricks_left = 18 - p.n_tricks
    if legal & EXCUSE_BIT and tricks_left == 2:
        return EXCUSE  # R8.2: kept to the last trick it would go to the other team
    if not p.trick or p.win_card < 0:
        # Leading (or right after a led Excuse: this card sets the suit).
        if me == p.taker:
            return _lead_taker(p, me, hand, legal)
        return _lead_defender(p, me, hand, legal)
    return _follow(p, me, hand, legal)


def _follow(p: Pos, me: int, hand: int, legal: int) -> int:
    taker = p.taker
    me_taker = me == taker
    n = len(p.trick)
    win_card = p.win_card
    win_seat = (p.leader + p.win_pos) & 3
    after = [(me + i) & 3 for i in range(1, 4 - n)]
    if me_taker:
        opps = after
    else:
        opps = [taker] if taker in after else []
    lead = p.lead
    plain_t, trump_t = _threats(p, opps, lead)
    ex = legal & EXCUSE_BIT
    cards = legal & ~EXCUSE_BIT

    partner_wins = not me_taker and win_seat != taker
    if partner_wins:
        win_trump = SUIT_OF[win_card] == TRUMP_SUIT
        if win_trump:
            safe = win_card > trump_t
        else:
            safe = trump_t < 0 and win_card > plain_t
        if safe:
            return _charge(cards, hand) if cards else EXCUSE
        # The taker may still take it: win it surely ourselves, else give little.
        sure = _sure(cards, win_card, plain_t, trump_t, lead)
        if sure:
            return _lo(sure)
        return _give(cards, ex, hand)

    # An opponent is winning the trick.
    sure = _sure(cards, win_card, plain_t, trump_t, lead)
    if sure:
        if sure & PETIT_BIT and opps and sure & ~PETIT_BIT:
            # "Sure" assumes those who may follow will: do not bet the Petit on it.
            return _lo(sure & ~PETIT_BIT)
        return _lo(sure)  # the cheapest sure winner (the Petit when last: it is then saved)
    trumps = cards & TRUMP_MASK
    if trumps and not cards & PLAIN_MASK:
        # Forced to play a trump that may be beaten: keep the Petit out of danger.
        if trumps == PETIT_BIT:
            return EXCUSE if ex else PETIT
        return _lo(trumps & ~PETIT_BIT)
    return _give(cards, ex, hand)


def _sure(cards: int, win_card: int, plain_t: int, trump_t: int, lead: int) -> int:
    """Cards of ``cards`` that beat ``win_card`` whatever the opponents still to play hold."""
    win_trump = SUIT_OF[win_card] == TRUMP_SUIT
    trumps = cards & TRUMP_MASK
    out = 0
    if trumps:
        floor = max(trump_t, win_card if win_trump else -1)
        out |= trumps & ~((1 << (floor + 1)) - 1) if floor >= 0 else trumps
    if not win_trump and trump_t < 0 and lead != TRUMP_SUIT:
        plain = cards & SUIT_MASKS[lead]
        if plain:
            floor = max(plain_t, win_card)
            out |= plain & ~((1 << (floor + 1)) - 1)
    return out


def _give(cards: int, ex: int, hand: int) -> int:
    """Lose the trick as cheaply as possible; the Excuse saves a costly card."""
    if not cards:
        return EXCUSE
    c = _cheapest(cards, hand)
    if ex and (HALF_POINTS[c] >= 5 or c in (PETIT, MONDE)):
        return EXCUSE
    return c


def _lead_defender(p: Pos, me: int, hand: int, legal: int) -> int:
    taker = p.taker
    th = p.hands[taker]
    others = _others(p, me)
    taker_trumps = th & TRUMP_MASK
    plain = legal & PLAIN_MASK
    if plain:
        # 1. Cash a master card in a suit the taker follows (or cannot trump).
        best = -1
        best_pts = -1
        for s in range(4):
            mine = plain & SUIT_MASKS[s]
            if not mine:
                continue
            top = _hi(mine)
            if others & SUIT_MASKS[s] & ABOVE_SAME[top]:
                continue
            if (th & SUIT_MASKS[s] or not taker_trumps) and HALF_POINTS[top] > best_pts:
                best_pts = HALF_POINTS[top]
                best = top
        if best >= 0 and best_pts >= 3:
            return best
        # 2. Make the taker trump: a small card of a suit he lacks (our longest such suit).
        if taker_trumps:
            cand = -1
            cand_len = 0
            for s in range(4):
                mine = plain & SUIT_MASKS[s]
                if (
                    mine
                    and not th & SUIT_MASKS[s]
                    and HALF_POINTS[_lo(mine)] <= 1
                    and mine.bit_count() > cand_len
                ):
                    cand_len = mine.bit_count()
                    cand = _lo(mine)
            if cand >= 0:
                return cand
        # 3. A small card of our longest suit, never the taker's suit when we can help it.
        best = -1
        best_key: tuple[int, int, int] = (-1, -1, -1)
        for s in range(4):
            mine = plain & SUIT_MASKS[s]
            if not mine:
                continue
            c = _lo(mine)
            key = (0 if p.taker_led >> s & 1 else 1, -HALF_POINTS[c], mine.bit_count())
            if key > best_key:
                best_key = key
                best = c
        return best
    # Only trumps (and maybe the Excuse) left.
    trumps = legal & TRUMP_MASK
    if legal & EXCUSE_BIT and (not trumps or trumps == PETIT_BIT):
        return EXCUSE
    if trumps & ~PETIT_BIT:
        return _lo(trumps & ~PETIT_BIT)
    return _lo(legal)


def _lead_taker(p: Pos, me: int, hand: int, legal: int) -> int:
    others = _others(p, me)
    out_tr = others & TRUMP_MASK
    my_tr = legal & TRUMP_MASK
    plain = legal & PLAIN_MASK
    if out_tr and my_tr & ~PETIT_BIT:
        n_my = my_tr.bit_count()
        n_out = out_tr.bit_count()
        masters = my_tr & ABOVE_SAME[_hi(out_tr)]
        if n_my >= n_out or (masters and n_my + masters.bit_count() > n_out) or not plain:
            # Draw trumps: a master if we have one, else a small one to pull theirs.
            if masters:
                return _lo(masters)
            return _lo(my_tr & ~PETIT_BIT)
    if plain:
        hands = p.hands
        defs = [s for s in range(4) if s != me]
        best = -1
        best_pts = -1
        for s in range(4):
            mine = plain & SUIT_MASKS[s]
            if not mine:
                continue
            top = _hi(mine)
            if others & SUIT_MASKS[s] & ABOVE_SAME[top]:
                continue
            # A master is sure when no defender can trump it.
            if any(not hands[d] & SUIT_MASKS[s] and hands[d] & TRUMP_MASK for d in defs):
                continue
            if HALF_POINTS[top] > best_pts:
                best_pts = HALF_POINTS[top]
                best = top
        if best >= 0:
            return best
        # Shorten the shortest suit without honours, from the bottom.
        best = -1
        best_key: tuple[int, int, int] = (99, 99, 99)
        for s in range(4):
            mine = plain & SUIT_MASKS[s]
            if not mine:
                continue
            c = _lo(mine)
            honours = sum(HALF_POINTS[x] for x in _cards(mine) if HALF_POINTS[x] > 1)
            key = (honours, mine.bit_count(), c)
            if key < best_key:
                best_key = key
                best = c
        return best
    if my_tr:
        # Only trumps: no trump left outside means all win; the Petit goes last (au bout).
        rest = my_tr & ~PETIT_BIT
        if rest:
            return _hi(rest) if out_tr else _lo(rest)
        if legal & EXCUSE_BIT and out_tr:
            return EXCUSE
        return PETIT
    return _lo(legal)
