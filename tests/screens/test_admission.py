"""The fairness rule for connections not yet sorted (``screens.admission``), as a table
would state it: a new connection is always taken; the room is made by the address
holding the most (its connections closed unsorted count as strikes), its oldest
first; this machine's own connections have their own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from facilitator.screens.admission import Unsorted


def test_a_new_address_is_taken_and_the_biggest_holder_loses_its_oldest():
    rule = Unsorted(limit=6)
    keys = iter(range(100))
    for address in ("g1", "g1", "g1", "g2", "g2", "phone"):
        assert rule.add(next(keys), address, own=False) is None
    assert rule.add(next(keys), "new-phone", own=False) == 0      # g1 holds most: its oldest goes
    assert (rule.held("g1"), rule.held("new-phone")) == (2, 1)
    assert rule.add(next(keys), "g2", own=False) == 1             # g1: 2 and a strike, g2: 2
    assert rule.add(next(keys), "g2", own=False) == 2             # g1: 1 and 2 strikes, g2: 3; g1's is older
    assert rule.held("phone") == 1 and rule.held("new-phone") == 1
    assert rule.strikes("g1", 0.0) == 3 and rule.strikes("phone", 0.0) == 0


def test_a_guest_spread_over_many_addresses_loses_its_own_not_a_phones():
    """One connection an address, as a phone holds, from twice as many addresses as the
    budget, each opened again as it is closed: once the guest has lost a connection at
    each address they carry its strikes, and a phone's connection outlasts hundreds of
    the guest's newer ones."""
    rule = Unsorted(limit=16)
    addresses = 32
    for key in range(addresses + 300):
        round_, now = key, key * 0.01
        if round_ == addresses:
            phone_key = key
            assert rule.add(key, "phone", own=False, now=now) is not None
        else:
            victim = rule.add(key, f"g{round_ % addresses}", own=False, now=now)
            assert round_ < addresses or victim != phone_key, round_
    assert phone_key in rule and rule.held("phone") == 1


def test_strikes_fade():
    rule = Unsorted(limit=1)
    rule.add(0, "g", own=False, now=0.0)
    rule.add(1, "h", own=False, now=0.0)          # g's connection closed for h's: a strike
    assert rule.strikes("g", 0.0) == 1
    assert abs(rule.strikes("g", 30.0) - 0.5) < 1e-9
    rule.remove(1, 0.0, sorted_=False)            # silent past its time: a strike for h
    assert rule.strikes("h", 0.0) == 1


def test_this_machines_own_connections_are_never_made_room_for_or_taken_by_others():
    rule = Unsorted(limit=2, own_limit=2)
    assert rule.add(0, "127.0.0.1", own=True) is None
    assert rule.add(1, "g", own=False) is None
    assert rule.add(2, "g", own=False) is None
    for key in range(3, 50):
        assert rule.add(key, "g", own=False) != 0                 # the table screen's stays
    assert rule.own() == 1
    assert rule.add(50, "127.0.0.1", own=True) is None
    assert rule.add(51, "127.0.0.1", own=True) == 0               # its own oldest, past its own budget


def test_sorted_connections_give_their_place_back():
    rule = Unsorted(limit=2)
    rule.add(0, "a", own=False)
    rule.add(1, "b", own=False)
    rule.remove(0)
    rule.remove(0)                                                # twice: nothing more
    assert rule.add(2, "c", own=False) is None and rule.others == 2


@given(st.lists(st.tuples(st.integers(0, 40), st.booleans(), st.integers(0, 3)), min_size=1, max_size=400))
def test_the_budget_holds_and_room_is_made_by_the_biggest_holders_oldest(steps):
    """Whatever arrives (and whichever connections get sorted meanwhile), no more than the
    budgets are held, and each connection closed to make room is the oldest one of an
    address holding the most, its strikes counted."""
    rule = Unsorted(limit=16, own_limit=4)
    where: dict[int, str] = {}              # the model: each unsorted key's address
    strikes: dict[str, int] = {}            # and each address's strikes (no time passes)
    for key, (guest, own, sorted_now) in enumerate(steps):
        for old in sorted(where)[:sorted_now % 2]:       # now and then the oldest one is sorted
            rule.remove(old)
            del where[old]
        address = "own" if own else f"g{guest}"
        others = {}
        for k, a in where.items():
            if a != "own":
                others.setdefault(a, []).append(k)
        victim = rule.add(key, address, own)
        if victim is not None:
            if own:
                assert victim == min(k for k, a in where.items() if a == "own")
            else:
                weight = {a: len(ks) + strikes.get(a, 0) for a, ks in others.items()}
                most = max(weight.values())
                assert where[victim] != "own" and weight[where[victim]] == most
                assert victim == min(min(others[a]) for a in others if weight[a] == most)
                strikes[where[victim]] = strikes.get(where[victim], 0) + 1
            del where[victim]
        where[key] = address
        assert rule.others == sum(a != "own" for a in where.values()) <= 16
        assert rule.own() == sum(a == "own" for a in where.values()) <= 4
