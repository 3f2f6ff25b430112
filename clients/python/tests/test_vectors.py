"""The shared vectors (Tests/Vectors): the checksum and merge patches agree with the server and the other clients."""

from __future__ import annotations

import copy

from conftest import load_vectors

from rollcall import RosterStore, apply_merge_patch, canonical_json, merge_patch_diff, roster_checksum


def test_every_roster_checksum_vector_matches() -> None:
    cases = load_vectors("roster-checksum.json")["cases"]
    assert len(cases) >= 7
    for case in cases:
        assert roster_checksum(case["roster"]) == case["checksum"], case["name"]


def test_a_store_started_from_each_vector_accepts_its_checksum() -> None:
    for case in load_vectors("roster-checksum.json")["cases"]:
        message = {"type": "snapshot", "room": "r", "seq": 1, "roster": case["roster"], "checksum": case["checksum"]}
        assert RosterStore.from_snapshot(message).checksum == case["checksum"], case["name"]


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
