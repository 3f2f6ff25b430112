"""The `view` objects `View` writes: every filter, a query narrowing one, and sort, offset and limit."""

from typing import get_args

from rollcall import View, ViewFilter, ViewSort


def test_every_documented_filter_has_a_helper() -> None:
    helpers = {
        View.all(), View.operators(), View.muted(), View.moderator_muted(), View.restricted(), View.banned(),
        View.raised_hands(), View.presenters(), View.speakers(), View.left(), View.search("a"), View.waiting(),
    }
    assert {view.filter for view in helpers} == set(get_args(ViewFilter))


def test_a_page_carries_its_sort_offset_and_limit() -> None:
    assert View.all().page(offset=50, limit=50, sort="name").to_json() == {
        "filter": "all", "sort": "name", "offset": 50, "limit": 50,
    }
    assert View.raised_hands().page(limit=3).to_json() == {"filter": "raised_hands", "offset": 0, "limit": 3}
    assert View.first(9).page(offset=9).to_json() == {"filter": "all", "offset": 9, "limit": 9}
    assert set(get_args(ViewSort)) == {"join", "name", "raised_hand", "recent_speaking"}


def test_a_query_narrows_any_filter() -> None:
    assert View.operators().narrowed("ann").to_json() == {"filter": "operators", "query": "ann", "match": "prefix"}
    assert View.search("an", substring=True).to_json() == {"filter": "search", "query": "an", "match": "substring"}
    assert View.all().to_json() == {"filter": "all"}
