"""A subscription's bookkeeping without sockets: the join it sends, its resume positions, and its rejoins."""

from __future__ import annotations

import copy
from typing import Any

from rollcall import (
    DriftDetected,
    EventReceived,
    ParticipantUpdated,
    Rejoin,
    Resumed,
    RoomMirror,
    SnapshotReplaced,
    View,
    merge_patch_diff,
    roster_checksum,
)
from rollcall.mirror import MAXIMUM_DRIFT_STREAK


def snapshot(roster: dict[str, Any], seq: int, **extra: Any) -> dict[str, Any]:
    return {"type": "snapshot", "room": "r", "seq": seq, "roster": roster, "checksum": roster_checksum(roster),
            **extra}


def patch(before: dict[str, Any], after: dict[str, Any], start: int, end: int, **extra: Any) -> dict[str, Any]:
    return {"type": "patch", "room": "r", "from": start, "seq": end, "patch": merge_patch_diff(before, after),
            "checksum": roster_checksum(after), **extra}


def event(seq: int, name: str = "participant.hand_raised", **extra: Any) -> dict[str, Any]:
    return {"type": "event", "room": "r", "seq": seq, "event": name, "actor": "bob", "data": {"uid": "bob"}, **extra}


def raised(roster: dict[str, Any], value: bool) -> dict[str, Any]:
    after = copy.deepcopy(roster)
    after["participants"]["u-bob"]["handRaised"] = value
    return after


def test_the_first_join_carries_no_positions_and_a_rejoin_carries_both() -> None:
    mirror = RoomMirror("r", device="bot-1", view=View.raised_hands(), events="notable", call_type="audio")
    assert mirror.join_message(resume=True) == {
        "type": "join", "room": "r", "device": "bot-1", "callType": "audio",
        "view": {"filter": "raised_hands"}, "events": "notable",
    }
    observer = RoomMirror("r", join_as="observer", call_type="audio")
    assert observer.join_message(resume=False)["as"] == "observer"
    assert "callType" not in observer.join_message(resume=False)


def test_positions_follow_patches_and_events_separately(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r")
    changes, rejoin = mirror.handle(snapshot(roster, 5))
    assert changes == [SnapshotReplaced(resync=False, recovered=None)] and rejoin is None
    assert (mirror.seq, mirror.last_event_seq) == (5, 5)
    # Events go out at once, patches after the coalescing window: the two positions differ.
    changes, _ = mirror.handle(event(6))
    assert isinstance(changes[0], EventReceived) and changes[0].event.seq == 6
    assert mirror.handle(event(6)) == ([], None), "an event seen already is not published twice"
    assert (mirror.seq, mirror.last_event_seq) == (5, 6)
    after = raised(roster, False)
    changes, _ = mirror.handle(patch(roster, after, 5, 6))
    assert changes == [ParticipantUpdated("u-bob")]
    message = mirror.join_message(resume=True)
    assert (message["resume"], message["resumeEvents"]) == (6, 6)


def test_a_patch_moves_the_event_position_so_a_quiet_mode_resumes_from_its_roster(
    two_participants: dict[str, Any],
) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r", events="notable")
    mirror.handle(snapshot(roster, 5))
    mirror.handle(event(7, "meeting.message"))
    mirror.handle(patch(roster, raised(roster, False), 5, 495))
    # Messages arrive in log order: the patch at 495 means every event up to it that the room takes came first.
    assert mirror.last_event_seq == 495
    message = mirror.join_message(resume=True)
    assert (message["resume"], message["resumeEvents"]) == (495, 495)


def test_a_resume_replays_once_and_reports_recovered(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r")
    mirror.handle(snapshot(roster, 5))
    after = raised(roster, False)
    mirror.handle(patch(roster, after, 5, 7))
    # The replay repeats a patch the roster holds, then the missed events, then `resumed`.
    assert mirror.handle(patch(roster, after, 5, 7, recovered=True)) == ([], None)
    changes, _ = mirror.handle(event(8, "session.connection_restored", recovered=True))
    assert isinstance(changes[0], EventReceived) and changes[0].event.recovered
    changes, _ = mirror.handle({"type": "resumed", "room": "r", "seq": 9, "recovered": True})
    assert changes == [Resumed(True)] and mirror.recovered is True and mirror.last_event_seq == 9


def test_a_resume_that_could_not_be_served_replaces_the_roster(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r")
    mirror.handle(snapshot(roster, 5))
    changes, _ = mirror.handle(snapshot(raised(roster, False), 40, recovered=False))
    assert changes == [SnapshotReplaced(resync=False, recovered=False), Resumed(False)]
    assert mirror.seq == 40 and mirror.recovered is False


def test_a_gap_rejoins_with_resume_and_a_mismatch_for_a_fresh_snapshot(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r")
    mirror.handle(snapshot(roster, 5))
    changes, rejoin = mirror.handle(patch(roster, raised(roster, False), 6, 7))
    assert isinstance(changes[0], DriftDetected) and rejoin == Rejoin(resume=True)
    wrong = {**patch(roster, raised(roster, False), 5, 7), "checksum": "ffffffffffffffff"}
    changes, rejoin = mirror.handle(wrong)
    assert isinstance(changes[0], DriftDetected) and rejoin == Rejoin(resume=False)
    assert mirror.seq == 5, "a refused patch leaves the roster where it was"


def test_rejoins_stop_after_a_streak_and_start_again_after_a_good_patch(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r")
    mirror.handle(snapshot(roster, 5))
    gap = patch(roster, raised(roster, False), 6, 7)
    rejoins = [mirror.handle(gap)[1] for _ in range(MAXIMUM_DRIFT_STREAK + 2)]
    assert rejoins[:MAXIMUM_DRIFT_STREAK] == [Rejoin(resume=True)] * MAXIMUM_DRIFT_STREAK
    assert rejoins[MAXIMUM_DRIFT_STREAK:] == [None, None]
    mirror.handle(patch(roster, raised(roster, False), 5, 6))
    assert mirror.handle(patch(roster, raised(roster, False), 8, 9))[1] == Rejoin(resume=True)


def test_patches_before_any_snapshot_are_ignored(two_participants: dict[str, Any]) -> None:
    roster = two_participants["roster"]
    mirror = RoomMirror("r")
    assert mirror.handle(patch(roster, raised(roster, False), 5, 6)) == ([], None)
    assert mirror.join_message(resume=True).get("resume") is None
