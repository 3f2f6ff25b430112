"""The roster store: continuity of `from`/`seq`, checksums, replays, and the incremental checksum."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from rollcall import RosterDrift, RosterStore, apply_merge_patch, merge_patch_diff, roster_checksum


def snapshot(roster: dict[str, Any], seq: int = 5) -> dict[str, Any]:
    return {"type": "snapshot", "room": "r", "seq": seq, "roster": roster, "checksum": roster_checksum(roster)}


def patch(before: dict[str, Any], after: dict[str, Any], start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": "patch",
        "room": "r",
        "from": start,
        "seq": end,
        "patch": merge_patch_diff(before, after),
        "checksum": roster_checksum(after),
        **extra,
    }


def muted(roster: dict[str, Any], uid: str, value: bool) -> dict[str, Any]:
    after = copy.deepcopy(roster)
    after["participants"][uid]["audioMuted"] = value
    return after


def test_snapshot_is_checked(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    store = RosterStore.from_snapshot(snapshot(roster))
    assert store.seq == 5 and store.checksum == two_participants["checksum"]
    assert [person.uid for person in store.participants] == ["u-alice", "u-bob"]
    bad = {**snapshot(roster), "checksum": "0000000000000000"}
    with pytest.raises(RosterDrift) as drift:
        RosterStore.from_snapshot(bad)
    assert drift.value.kind == "checksum" and not drift.value.resumable


def test_a_patch_applies_from_any_seq_between_its_from_and_its_seq(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    after = muted(roster, "u-alice", True)
    for start in (3, 5):
        store = RosterStore.from_snapshot(snapshot(roster, seq=5))
        outcome = store.apply_patch(patch(roster, after, start, 7))
        assert outcome.applied and outcome.updated == ("u-alice",) and not outcome.room_changed
        assert store.seq == 7 and store.roster == after
        assert store.participant("u-alice") is not None and store.participant("u-alice").audio_muted  # type: ignore[union-attr]


def test_a_gap_is_resumable_and_leaves_the_store_as_it_was(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    store = RosterStore.from_snapshot(snapshot(roster, seq=5))
    with pytest.raises(RosterDrift) as drift:
        store.apply_patch(patch(roster, muted(roster, "u-bob", False), 6, 8))
    assert drift.value.kind == "gap" and drift.value.resumable
    assert store.seq == 5 and store.roster == roster


def test_a_patch_that_ends_at_or_before_the_roster_is_out_of_order(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    store = RosterStore.from_snapshot(snapshot(roster, seq=5))
    with pytest.raises(RosterDrift) as drift:
        store.apply_patch(patch(roster, muted(roster, "u-bob", False), 4, 5))
    assert drift.value.kind == "order" and not drift.value.resumable


def test_a_replayed_patch_the_roster_holds_is_skipped(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    store = RosterStore.from_snapshot(snapshot(roster, seq=5))
    outcome = store.apply_patch(patch(roster, muted(roster, "u-bob", False), 3, 5, recovered=True))
    assert not outcome.applied and store.seq == 5 and store.roster == roster


def test_a_checksum_mismatch_is_drift_and_changes_nothing(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    store = RosterStore.from_snapshot(snapshot(roster, seq=5))
    wrong = {**patch(roster, muted(roster, "u-bob", False), 5, 6), "checksum": "0123456789abcdef"}
    with pytest.raises(RosterDrift) as drift:
        store.apply_patch(wrong)
    assert drift.value.kind == "checksum"
    assert store.seq == 5 and store.roster == roster and store.checksum == roster_checksum(roster)
    store.apply_patch(patch(roster, muted(roster, "u-bob", False), 5, 6))
    assert store.seq == 6


def test_joins_leaves_and_room_changes_are_reported(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    after = copy.deepcopy(roster)
    del after["participants"]["u-alice"]
    after["participants"]["u-carol"] = {"uid": "u-carol", "name": "Carol", "order": 2}
    del after["room"]["activeSpeaker"]
    store = RosterStore.from_snapshot(snapshot(roster, seq=1))
    outcome = store.apply_patch(patch(roster, after, 1, 2))
    assert outcome.removed == ("u-alice",) and outcome.added == ("u-carol",) and outcome.room_changed
    assert [person.uid for person in store.participants] == ["u-bob", "u-carol"]


def test_a_patch_of_other_members_recomputes_every_hash(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    store = RosterStore.from_snapshot(snapshot(roster, seq=1))
    replaced = {"room": {"callType": "audio"}, "participants": {}}
    message = {"type": "patch", "room": "r", "from": 1, "seq": 2, "patch": {"participants": None, "room": None},
               "checksum": roster_checksum({"room": {}, "participants": {}})}
    store.apply_patch(message)
    assert store.roster == {} and store.checksum == roster_checksum({})
    store.apply_patch({"type": "patch", "room": "r", "from": 2, "seq": 3, "patch": replaced,
                       "checksum": roster_checksum(replaced)})
    assert store.roster == replaced


def test_the_incremental_checksum_equals_the_whole_one_over_a_seeded_walk() -> None:
    rng = random.Random(7386)
    roster: dict[str, Any] = {"room": {"participantCount": 0}, "participants": {}}
    store = RosterStore.from_snapshot(snapshot(roster, seq=0))
    flags = ("audioMuted", "videoPaused", "presenting", "handRaised", "pinned")
    for seq in range(1, 1001):
        after = copy.deepcopy(roster)
        uid = f"u-{rng.randrange(12)}"
        people = after["participants"]
        if uid not in people:
            people[uid] = {"uid": uid, "name": uid.upper(), "order": seq, **{flag: False for flag in flags}}
        elif rng.random() < 0.15:
            del people[uid]
        else:
            flag = rng.choice(flags)
            people[uid][flag] = not people[uid][flag]
        after["room"]["participantCount"] = len(people)
        outcome = store.apply_patch(patch(roster, after, seq - 1, seq))
        assert outcome.applied
        roster = after
        assert store.checksum == roster_checksum(roster) == store.server_checksum
    assert store.roster == roster and store.seq == 1000
    assert apply_merge_patch({}, store.roster) == roster
