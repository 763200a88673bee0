"""Card play by club principles, on bitmasks: the ``heuristic`` bot's play and the rollout policy
of the ``strong`` bot.

:func:`choose_card` reads a :class:`~server.ai.kernel.Pos`. For ``me`` the hand is exact; for the
other seats ``p.hands`` holds what they *may* hold. In a perfect-information rollout those are
the real hands (``sizes`` is None); otherwise they are the unseen cards minus what each seat has
shown it lacks (voids, trump ceilings), and ``sizes`` gives the number of cards each seat really
holds. Risks are then probabilities: a seat that *may* hold the led suit may also be void in it
(:func:`none_prob`, the chance that none of the cards it may hold in the suit are in its hand),
and a card is "sure" only when no opponent still to play can beat it in any deal that fits.

Principles (issues 4 and 13): defenders cash sure winners, make the taker trump, never return the
taker's suit, charge points on a partner's trick only when the taker still to play is unlikely to
take it (:data:`CHARGE_RISK`), never play the Petit where an opponent still to play may beat it;
the taker draws trumps when long in them, cashes masters only when a defender is unlikely to
trump them (:data:`CASH_RISK`: a long suit is likely to be trumped), shortens short suits, keeps
the Petit for the end when no trump is left outside; everyone plays the Excuse before the last
trick and uses it to save a costly card.
"""

from __future__ import annotations

from collections.abc import Sequence

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

# Risk thresholds, chosen with bench/ai_duel.py (heuristic vs heuristic_v1, 1,000 deals, seed 1;
# the final figures are measured on seed 2). Game points per deal against the chosen values:
# CHARGE_RISK: largest chance that the taker still to play takes a partner's trick on which a
# defender puts points. 0 (only when he surely cannot) beat 0.04 by +0.3 and 0.25 by +0.5, and
# halves issue 13's error 2.
CHARGE_RISK = 0.0
# CASH_RISK: largest chance that the taker trumps a defender's master when the defender leads
# it. 0 (only a master the taker surely cannot trump; otherwise make him trump small cards or
# lead a small one) beat 0.3 by +1.71 +- 0.56 per deal, 0.02 by +0.38 and 0.05 by +0.70 (each
# in one seat among three heuristic_v1 bots, same 1,000 deals, seed 1); 0.3 had beaten 0.99.
CASH_RISK = 0.0
# TAKER_CASH_RISK / LONG_CASH_RISK: largest chance that a defender trumps a master the taker
# cashes, in a suit of fewer / at least LONG_SUIT cards. Cashing less (0.15 or 0.2 for long
# suits) cut error 4 (kings of long suits trumped) further but lost 1.6 to 4 points per deal:
# the king's expected gain outweighs the risk; the rate of error 4 is halved anyway because the
# fitted bidding takes with more trumps.
TAKER_CASH_RISK = 0.9
LONG_SUIT = 5
LONG_CASH_RISK = 0.5
# TAKE_RISK: largest chance of being beaten for a card of the suit led played to win a trick an
# opponent is winning (0.15..0.5: no measurable difference).
TAKE_RISK = 0.3
# A trick is trumped with the lowest trump (not the Petit) whose chance of being overtrumped is
# at most TRUMP_RISK, rather than with a master trump (0.7 beat 0.35 by +0.4 and 1.0 by +0.3;
# doing so only for tricks worth little measured worse than for every trick).
TRUMP_RISK = 0.7


def none_prob(possible: int, wanted: int, size: int) -> float:
    """Chance that a hand of ``size`` cards drawn uniformly from ``possible`` holds none of
    ``wanted`` (hypergeometric)."""
    n = (possible & wanted).bit_count()
    if not n:
        return 1.0
    pool = possible.bit_count()
    if size >= pool - n + 1:
        return 0.0
    # It depends on three small counts only: memoised (the rollouts of the strong bot ask it
    # about a million times a second; the cache holds at most 78 x 78 x 24 values).
    key = pool << 16 | n << 8 | size
    prob = _NONE_PROB.get(key)
    if prob is None:
        prob = 1.0
        for i in range(n):
            prob *= (pool - size - i) / (pool - i)
        _NONE_PROB[key] = prob
    return prob


_NONE_PROB: dict[int, float] = {}


def beat_prob(p: Pos, opps: Sequence[int], lead: int, card: int, sizes: list[int] | None) -> float:
    """Chance that one of ``opps`` (still to play) can beat ``card``, the trick's best card so
    far (``lead`` the suit led; ``card`` of that suit or a trump)."""
    # The policy's most called function: the chances are written out here, not in helpers.
    keep = 1.0
    is_trump = SUIT_OF[card] == TRUMP_SUIT
    above_trumps = ABOVE_SAME[card] if is_trump else TRUMP_MASK
    hands = p.hands
    for s in opps:
        h = hands[s]
        if not h:
            continue
        if h & above_trumps:
            n_tr = 0.0 if sizes is None else none_prob(h, above_trumps, sizes[s])
        else:
            n_tr = 1.0
        if lead == TRUMP_SUIT:
            pr = 1.0 - n_tr
        else:
            suit = SUIT_MASKS[lead]
            if h & suit:
                pv = 0.0 if sizes is None else none_prob(h, suit, sizes[s])
            else:
                pv = 1.0
            pr = pv * (1.0 - n_tr)
            if not is_trump:  # a higher card of the suit (then not void: disjoint events)
                higher = suit & ABOVE_SAME[card]
                if h & higher:
                    pr += 1.0 - (0.0 if sizes is None else none_prob(h, higher, sizes[s]))
        keep *= 1.0 - min(1.0, pr)
    return 1.0 - keep


def _hi(m: int) -> int:
    return m.bit_length() - 1


def _lo(m: int) -> int:
    return (m & -m).bit_length() - 1


def _cheapest(cands: int, hand: int) -> int:
    """The card of ``cands`` that costs least to give away: fewest points, plain before trumps,
    from the shortest suit (voids for later trumping), lowest rank. Never the Excuse unless alone."""
    best = -1
    best_key: tuple[int, int, int, int] = (99, 9, 99, 99)
    m = cands & ~EXCUSE_BIT
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
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


def _others(p: Pos, me: int) -> int:
    h = p.hands
    return (h[0] | h[1] | h[2] | h[3]) & ~h[me]


def choose_card(p: Pos, me: int, sizes: list[int] | None = None) -> int:
    """The card ``me`` (whose turn it is) plays. ``sizes``: the real hand sizes when the other
    hands in ``p`` are only what they may hold (None: they are exact)."""
    hand = p.hands[me]
    legal = legal_mask(hand, p.lead, p.hi)
    if not legal & (legal - 1):
        return _lo(legal)
    return choose_among(p, me, hand, legal, sizes)


def choose_among(p: Pos, me: int, hand: int, legal: int, sizes: list[int] | None) -> int:
    """:func:`choose_card` once the legal cards (``legal``, at least two) are known."""
    tricks_left = 18 - p.n_tricks
    if legal & EXCUSE_BIT and tricks_left == 2:
        return EXCUSE  # R8.2: kept to the last trick it would go to the other team
    if not p.trick or p.win_card < 0:
        # Leading (or right after a led Excuse: this card sets the suit).
        if me == p.taker:
            return _lead_taker(p, me, hand, legal, sizes)
        return _lead_defender(p, me, hand, legal, sizes)
    return _follow(p, me, hand, legal, sizes)


# SEATS_AFTER[me][n]: the seats still to play after ``me``, the (n+1)-th card of the trick.
SEATS_AFTER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((me + i) & 3 for i in range(1, 4 - n)) for n in range(4)) for me in range(4)
)


def _follow(p: Pos, me: int, hand: int, legal: int, sizes: list[int] | None) -> int:
    taker = p.taker
    me_taker = me == taker
    n = len(p.trick)
    win_card = p.win_card
    win_seat = (p.leader + p.win_pos) & 3
    after = SEATS_AFTER[me][n]
    if me_taker:
        opps = after
    else:
        opps = (taker,) if taker in after else ()
    lead = p.lead
    ex = legal & EXCUSE_BIT
    cards = legal & ~EXCUSE_BIT

    if not me_taker and win_seat != taker:
        # A partner is winning: charge points when the taker is unlikely to take it (the Petit
        # only when he surely cannot).
        risk = beat_prob(p, opps, lead, win_card, sizes)
        if risk <= CHARGE_RISK and cards:
            return _charge(cards if risk == 0 else cards & ~PETIT_BIT or cards, hand)
        if not cards:
            return EXCUSE
        # The taker may take it: win it surely ourselves, else give little.
        sure = sure_winners(p, cards, opps, lead, sizes)
        if sure:
            return _lo(sure)
        return _give(cards, ex, hand)

    # An opponent is winning the trick (or I am the taker).
    sure = sure_winners(p, cards, opps, lead, sizes)
    if sure:
        c = _lo(sure)  # the cheapest sure winner (the Petit only when it cannot be beaten)
        if SUIT_OF[c] == TRUMP_SUIT and lead != TRUMP_SUIT:
            # Do not spend a master trump on a cheap trick: a low trump that is probably not
            # overtrumped does.
            low = cards & TRUMP_MASK & ~PETIT_BIT & ~sure
            if low and beat_prob(p, opps, lead, _lo(low), sizes) <= TRUMP_RISK:
                return _lo(low)
        return c
    # No sure winner: the cheapest card of the suit led that probably wins (a trump that may
    # be overtrumped is played low, below).
    m = cards & SUIT_MASKS[lead] if lead < TRUMP_SUIT else 0
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if _beats(c, win_card, lead) and beat_prob(p, opps, lead, c, sizes) <= TAKE_RISK:
            return c
    trumps = cards & TRUMP_MASK
    if trumps and not cards & PLAIN_MASK:
        # Forced to play a trump that may be beaten: keep the Petit out of danger.
        if trumps == PETIT_BIT:
            return EXCUSE if ex else PETIT
        return _lo(trumps & ~PETIT_BIT)
    return _give(cards, ex, hand)


def _beats(card: int, win_card: int, lead: int) -> bool:
    s = SUIT_OF[card]
    ws = SUIT_OF[win_card]
    if s == TRUMP_SUIT:
        return ws != TRUMP_SUIT or card > win_card
    return s == lead and ws == s and card > win_card


def sure_winners(
    p: Pos, cards: int, opps: Sequence[int], lead: int, sizes: list[int] | None
) -> int:
    """Cards of ``cards`` that take the trick whatever the opponents still to play hold."""
    out = 0
    win_card = p.win_card
    # Only cards of the suit led and trumps can win, and in each of the two the sure cards are
    # the highest ones (a higher card can be beaten by fewer cards): from the top down, stop at
    # the first card that is not sure.
    for group in (cards & SUIT_MASKS[lead] if lead < TRUMP_SUIT else 0, cards & TRUMP_MASK):
        while group:
            c = group.bit_length() - 1
            if not _beats(c, win_card, lead) or beat_prob(p, opps, lead, c, sizes) != 0.0:
                break
            out |= 1 << c
            group ^= 1 << c
    return out


def _give(cards: int, ex: int, hand: int) -> int:
    """Lose the trick as cheaply as possible; the Excuse saves a costly card."""
    if not cards:
        return EXCUSE
    c = _cheapest(cards, hand)
    if ex and (HALF_POINTS[c] >= 5 or c in (PETIT, MONDE)):
        return EXCUSE
    return c


def _lead_defender(p: Pos, me: int, hand: int, legal: int, sizes: list[int] | None) -> int:
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
            if HALF_POINTS[top] > best_pts and beat_prob(p, [taker], s, top, sizes) <= CASH_RISK:
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


def _lead_taker(p: Pos, me: int, hand: int, legal: int, sizes: list[int] | None) -> int:
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
        defs = [s for s in range(4) if s != me]
        best = -1
        best_pts = -1
        long_low = -1  # a small card of a long suit whose master is too likely trumped
        for s in range(4):
            mine = plain & SUIT_MASKS[s]
            if not mine:
                continue
            top = _hi(mine)
            if others & SUIT_MASKS[s] & ABOVE_SAME[top]:
                continue
            # Cash a master only when the defenders are unlikely to trump it: the longer our
            # suit, the likelier one of them is void.
            risk = beat_prob(p, defs, s, top, sizes)
            if mine.bit_count() >= LONG_SUIT and risk > LONG_CASH_RISK:
                # Lead small in it instead: the honours out fall, the king stays master.
                if HALF_POINTS[_lo(mine)] == 1:
                    long_low = _lo(mine)
                continue
            if risk > TAKER_CASH_RISK:
                continue
            if HALF_POINTS[top] > best_pts:
                best_pts = HALF_POINTS[top]
                best = top
        if best >= 0:
            return best
        if long_low >= 0:
            return long_low
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
