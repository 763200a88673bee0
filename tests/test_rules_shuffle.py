"""The shuffle of a server's deals (R2.2: 18 cards to each player, 6 to the chien): with the OS's
random source it reads that source once per deal and stays uniform; a seeded ``Random`` deals
exactly what it always dealt (tests and benchmarks rely on their seeds)."""

from __future__ import annotations

import random

from server.rules.cards import N_CARDS
from server.rules.deal import new_deal, shuffled_masks


class CountingSystemRandom(random.SystemRandom):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def randbytes(self, n: int) -> bytes:
        self.reads += 1
        return super().randbytes(n)

    def getrandbits(self, k: int) -> int:
        self.reads += 1
        return super().getrandbits(k)

    def random(self) -> float:
        self.reads += 1
        return super().random()


def test_a_system_random_deal_reads_the_os_once() -> None:
    rng = CountingSystemRandom()
    st = new_deal(rng, 2)
    assert rng.reads == 1
    hands = st.initial_hands
    assert [h.bit_count() for h in hands] == [18, 18, 18, 18]  # R2.2
    assert st.chien.bit_count() == 6
    every = st.chien
    for h in hands:
        assert every & h == 0
        every |= h
    assert every == (1 << N_CARDS) - 1


def test_the_system_random_shuffle_is_uniform() -> None:
    """Where three cards land (one of the four hands or the chien) over 7,800 deals: a
    chi-square test per card against 18/78 and 6/78, with a threshold a correct shuffle crosses
    about once in 70,000 runs."""
    rng = random.SystemRandom()
    n = 7_800
    places = {0: [0] * 5, 77: [0] * 5, 21: [0] * 5}
    for _ in range(n):
        hands, chien = shuffled_masks(rng)
        for card, counts in places.items():
            bit = 1 << card
            where = 4 if chien & bit else next(s for s in range(4) if hands[s] & bit)
            counts[where] += 1
    for card, counts in places.items():
        expected = [n * 18 / 78] * 4 + [n * 6 / 78]
        chi2 = sum((o - e) ** 2 / e for o, e in zip(counts, expected, strict=True))
        assert chi2 < 30, (card, counts)  # 4 degrees of freedom: p about 5e-6 above 30


def test_a_seed_deals_what_it_always_dealt() -> None:
    for seed in (1, 7, 2026):
        deck = list(range(N_CARDS))
        random.Random(seed).shuffle(deck)
        hands = [sum(1 << c for c in deck[18 * s : 18 * s + 18]) for s in range(4)]
        st = new_deal(seed, 0)
        assert list(st.initial_hands) == hands
        assert st.chien == sum(1 << c for c in deck[72:])


def test_the_shuffle_leaves_cards_in_place_as_often_as_chance_does() -> None:
    """A uniform permutation of 78 cards leaves on average one card where it was; the classic
    off-by-one (Sattolo's algorithm, j below i instead of up to i) never does, and would pass
    the test above."""
    import os

    from server.rules.deal import _shuffle_from_bytes

    runs, fixed = 3_000, 0
    for _ in range(runs):
        deck = list(range(N_CARDS))
        _shuffle_from_bytes(deck, os.urandom(8 * (N_CARDS - 1)))
        assert sorted(deck) == list(range(N_CARDS))
        fixed += sum(1 for i, c in enumerate(deck) if i == c)
    assert 2_700 < fixed < 3_300  # Poisson(3,000): 5.5 standard deviations either side
