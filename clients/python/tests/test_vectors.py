"""The shared vectors (Tests/Vectors): the checksum, merge patches and protocol constants agree with the server and the
other clients."""

from __future__ import annotations

import copy

from conftest import load_vectors

from rollcall import (
    CLIENT_MESSAGE_TYPES,
    EVENT_NAMES,
    FINAL_CLOSE_CODES,
    LEAVE_REASONS,
    PARTICIPANT_FLAGS,
    SERVER_MESSAGE_TYPES,
    STATE_FIELDS,
    UNSUBSCRIBE_REASONS,
    VIEW_COUNTS,
    VIEW_FILTERS,
    CloseCode,
    Participant,
    RosterStore,
    ServerError,
    ViewCounts,
    apply_merge_patch,
    canonical_json,
    merge_patch_diff,
    roster_checksum,
    server_error,
)
from rollcall.protocol import attribute_name
from rollcall.tokens import ROLES


def test_every_roster_checksum_vector_matches() -> None:
    cases = load_vectors("roster-checksum.json")["cases"]
    assert len(cases) >= 7
    for case in cases:
        assert roster_checksum(case["roster"]) == case["checksum"], case["name"]


def test_a_store_started_from_each_vector_accepts_its_checksum() -> None:
    for case in load_vectors("roster-checksum.json")["cases"]:
        message = {"type": "snapshot", "room": "r", "seq": 1, "roster": case["roster"], "checksum": case["checksum"]}
        assert RosterStore.from_snapshot(message).checksum == case["checksum"], case["name"]


def test_a_views_counts_and_total_read_from_the_vectors_and_follow_their_patches() -> None:
    cases = {case["name"]: case for case in load_vectors("roster-checksum.json")["cases"]}
    page = next(case for name, case in cases.items() if name.startswith("a raised_hands view"))
    store = RosterStore.from_snapshot(
        {"type": "snapshot", "room": "r", "seq": 1, "roster": page["roster"], "checksum": page["checksum"]}
    )
    assert store.counts == ViewCounts(
        in_call=2, hands_raised=1, muted=1, video=2, presenting=1, roles={"moderator": 1, "participant": 1}
    )
    assert store.view_total == 1
    empty = next(case for name, case in cases.items() if name.startswith("an empty room: counts"))
    empty_store = RosterStore.from_snapshot(
        {"type": "snapshot", "room": "r", "seq": 1, "roster": empty["roster"], "checksum": empty["checksum"]}
    )
    assert empty_store.counts == ViewCounts()
    assert empty_store.view_total == 0
    # The last viewer leaves and the last hand goes down: those counts arrive as nulls and read 0.
    leave = next(
        case for case in load_vectors("merge-patch.json")["diff"] if case["name"].startswith("the last viewer leaves")
    )
    before = copy.deepcopy(leave["before"])
    patched = RosterStore.from_snapshot(
        {"type": "snapshot", "room": "r", "seq": 10, "roster": before, "checksum": roster_checksum(before)}
    )
    assert patched.counts.count_of("viewer") == 1
    patched.apply_patch(
        {
            "type": "patch",
            "room": "r",
            "from": 10,
            "seq": 11,
            "patch": leave["patch"],
            "checksum": roster_checksum(leave["after"]),
        }
    )
    assert patched.counts.count_of("viewer") == 0
    assert patched.counts.hands_raised == 0
    assert patched.counts.in_call == 2
    assert patched.view_total == 2


def test_every_merge_patch_application_vector_matches() -> None:
    cases = load_vectors("merge-patch.json")["apply"]
    assert len(cases) == 15
    for case in cases:
        target = copy.deepcopy(case["target"])
        assert apply_merge_patch(target, case["patch"]) == case["result"], case
        assert target == case["target"], "the target is left as it was"


def test_every_diff_vector_is_the_smallest_patch_and_applies_back() -> None:
    for case in load_vectors("merge-patch.json")["diff"]:
        patch = merge_patch_diff(case["before"], case["after"])
        assert patch == case["patch"], case["name"]
        assert apply_merge_patch(case["before"], patch) == case["after"], case["name"]


def test_canonical_form_sorts_keys_by_code_point_not_utf16_units() -> None:
    assert canonical_json({"\U0001F600": 1, "\uFF61": 2}) == '{"\uFF61":2,"\U0001F600":1}'


def test_canonical_form_escapes_only_quote_backslash_and_control_characters() -> None:
    text = canonical_json({"s": 'a"b\\c/d\n\x07\x7f\u00e9'})
    assert text == '{"s":"a\\"b\\\\c/d\\n\\u0007\x7f\u00e9"}'


def test_the_clients_protocol_constants_are_the_shared_vectors() -> None:
    protocol = load_vectors("protocol.json")
    assert set(CLIENT_MESSAGE_TYPES) == set(protocol["messageTypes"]["client"])
    assert len(CLIENT_MESSAGE_TYPES) == len(protocol["messageTypes"]["client"])
    assert set(SERVER_MESSAGE_TYPES) == set(protocol["messageTypes"]["server"])
    assert sorted(EVENT_NAMES) == sorted(protocol["events"])
    assert list(VIEW_FILTERS) == protocol["viewFilters"]
    assert list(VIEW_COUNTS) == [count["name"] for count in protocol["viewCounts"]]
    assert list(ROLES) == protocol["roles"]
    assert list(UNSUBSCRIBE_REASONS) == protocol["unsubscribeReasons"]
    assert list(LEAVE_REASONS) == protocol["leaveReasons"]
    assert [(name, *flag) for name, flag in PARTICIPANT_FLAGS.items()] == [
        (flag["name"], flag["on"], flag["off"], flag["setByParticipant"]) for flag in protocol["participantFlags"]
    ]
    assert [(code.name.lower(), code.value) for code in CloseCode] == [
        (row["name"], row["code"]) for row in protocol["closeCodes"]
    ]
    assert {row["code"] for row in protocol["closeCodes"] if row["final"]} == FINAL_CLOSE_CODES


def test_every_error_code_has_its_class_with_its_http_status() -> None:
    for row in load_vectors("protocol.json")["errorCodes"]:
        error = server_error(row["code"], "words")
        assert type(error) is not ServerError, row["code"]
        assert row["code"] == error.CODE
        assert row["httpStatus"] == error.HTTP_STATUS, row["code"]
    assert type(server_error("ERR_FROM_A_NEWER_GATEWAY")) is ServerError


def test_a_participant_reads_every_flag_of_its_entry() -> None:
    for flag in load_vectors("protocol.json")["participantFlags"]:
        attribute = attribute_name(flag["name"])
        assert getattr(Participant.from_entry("u", {flag["name"]: True}), attribute) is True, flag["name"]
        assert getattr(Participant.from_entry("u", {}), attribute) is False, flag["name"]


def test_set_state_takes_every_flag_a_participant_sets_and_no_other() -> None:
    flags = load_vectors("protocol.json")["participantFlags"]
    own = {attribute_name(flag["name"]): flag["name"] for flag in flags if flag["setByParticipant"]}
    assert own, "participants set some flags"
    assert {key: member for key, member in STATE_FIELDS.items() if member not in ("mid", "cameraFacing")} == own
    assert attribute_name("handRaised") == "hand_raised"
    assert "pinned" not in STATE_FIELDS.values()
