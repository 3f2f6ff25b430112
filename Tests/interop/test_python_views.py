"""Every roster view of docs/PROTOCOL.md through the Python client's `View`, against a live gateway: each filter,
a query narrowing one, and sort with offset and limit.

Join order and name order differ on purpose (Dave, Bob, Erin, Carol, Frank join in that order after Alice), so a
window that sorts by name selects other people than one in join order.
"""

import asyncio

from test_call_end_to_end import mint, rollcall, run  # noqa: F401 (the fixture)

from rollcall import Client, RequestTimeout, View

ROOM = "views"
PEOPLE = [("alice", "Alice", "moderator"), ("dave", "Dave", None), ("bob", "Bob", None), ("erin", "Erin", None),
          ("carol", "Carol", None), ("frank", "Frank", None)]

EXPECTED = [
    (View.all(), {"alice", "dave", "bob", "erin", "carol", "frank"}),
    (View.operators(), {"alice"}),
    (View.muted(), {"bob", "carol", "dave"}),
    (View.moderator_muted(), {"carol", "dave"}),
    (View.restricted(), {"dave"}),
    (View.banned(), {"hank"}),
    (View.raised_hands(), {"frank", "bob"}),
    (View.presenters(), {"erin"}),
    (View.speakers(), {"carol"}),
    (View.left(), {"gina"}),
    (View.search("car"), {"carol"}),
    (View.search("an", substring=True), {"frank"}),
    (View.operators().narrowed("al"), {"alice"}),
    (View.muted().narrowed("c"), {"carol"}),
    # Windows: the order decides who is in them.
    (View.first(2), {"alice", "dave"}),
    (View.all().page(offset=1, limit=2), {"dave", "bob"}),
    (View.all().page(offset=1, limit=2, sort="name"), {"bob", "carol"}),
    (View.all().page(offset=4, sort="name"), {"erin", "frank"}),
    (View.raised_hands().page(limit=1), {"frank"}),
    (View.raised_hands().page(limit=1, sort="join"), {"bob"}),
    (View.all().page(limit=2, sort="recent_speaking"), {"carol", "erin"}),
]


def test_every_filter_sort_offset_and_limit_selects_what_the_protocol_says(rollcall):
    server = rollcall(**{"rooms.patch_window_ms": 20, "rooms.speaker_stable_ms": 50, "rooms.speaker_hold_ms": 50})

    async def scenario():
        clients = {}
        rooms = {}
        try:
            for uid, name, role in PEOPLE + [("gina", "Gina", None)]:
                token = mint(uid, name=name, rooms=[ROOM], role=role) if role else mint(uid, name=name, groups=[ROOM])
                clients[uid] = Client(server.url, token, request_timeout=5)
                await clients[uid].connect()
                rooms[uid] = await clients[uid].join(ROOM)
            await rooms["gina"].leave()
            alice = rooms["alice"]
            await rooms["bob"].set_state(audio_muted=True)
            await alice.mute("carol")
            await alice.mute("dave", hard=True, duration=600)
            await alice.ban("hank")
            await rooms["frank"].set_state(hand_raised=True)
            # raisedAt is in milliseconds and equal times keep join order (Bob's first): Bob raises a little later.
            await asyncio.sleep(0.01)
            await rooms["bob"].set_state(hand_raised=True)
            await rooms["erin"].set_state(presenting=True)
            await rooms["erin"].report_speaking(True)
            await asyncio.sleep(0.2)
            await rooms["erin"].report_speaking(False)
            await asyncio.sleep(0.1)
            await rooms["carol"].report_speaking(True)
            await asyncio.sleep(0.3)

            async with Client(server.url, mint("ops", rooms=[ROOM], role="admin"), request_timeout=5) as ops:
                watching = await ops.observe(ROOM, view=View.all())
                for view, expected in EXPECTED:
                    await watching.change_view(view)
                    try:
                        await watching.wait_for(lambda room, want=expected: {p.uid for p in room.participants} == want,
                                                timeout=5)
                    except RequestTimeout:
                        pass  # the assertion below names the view and what it showed
                    shown = {person.uid for person in watching.participants}
                    assert shown == expected, (view, shown)
                    assert watching.store.checksum == watching.store.server_checksum, view
        finally:
            for client in clients.values():
                await client.close()

    run(scenario())
