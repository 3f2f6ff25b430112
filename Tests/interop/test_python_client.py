"""The Python package's asyncio client, server API client and tokens against `rollcall serve`.

Each test starts the built binary on a free loopback port (the `rollcall` fixture of test_call_end_to_end) and drives
it with `rollcall.Client`, `rollcall.ServerAPI` / `AsyncServerAPI` and the token helpers. Every wait is bounded.
"""

import asyncio
import base64
import json
import subprocess
import time

import pytest
from test_call_end_to_end import BINARY, CONFIG, PROJECT_ROOT, ROOM, configured_key, mint, rollcall, run  # noqa: F401

from rollcall import (
    AsyncServerAPI,
    CallFullError,
    Client,
    ConnectionLost,
    Ended,
    ForbiddenError,
    NotFoundError,
    NotGroupMemberError,
    ReconnectPolicy,
    Resumed,
    ServerAPI,
    TokenKey,
    TooLargeError,
    UnauthorizedError,
    Unsubscribed,
    UnsubscribedError,
    View,
    mint_token,
    verify_token,
)

API_SECRET = "python-client-test-secret-0123456789"
FAST = ReconnectPolicy(max_attempts=5, initial_delay=0.05, max_delay=0.5, jitter=0.1)


def key():
    kid, secret = configured_key()
    return TokenKey.parse(f"{kid}:{secret}")


def http_base(server):
    return server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]


def client(server, uid, **claims):
    """A client with a token the package minted, fast reconnects and short timeouts."""
    options = {name: claims.pop(name) for name in ("token_provider", "reconnect", "auth", "refresh_margin")
               if name in claims}
    token = None if "token_provider" in options else mint_token(key(), uid, name=uid.title(), **claims)
    return Client(server.url, token, device=f"{uid}-device", request_timeout=5, open_timeout=5,
                  reconnect=options.pop("reconnect", FAST), **options)


def test_rooms_rosters_events_moderation_and_typed_errors(rollcall):
    server = rollcall(**{"rooms.capacity": 2})

    async def scenario():
        alice = client(server, "alice", rooms=[ROOM], role="moderator")
        bob = client(server, "bob", groups=[ROOM], auth="header")
        carol = client(server, "carol", groups=[ROOM], auth="message")
        bot = client(server, "notetaker", rooms={ROOM: "bot"}, caps=["mute"])
        dave = client(server, "dave", groups=[ROOM])
        outsider = client(server, "mallory", rooms=["elsewhere"])
        everyone = (alice, bob, carol, bot, dave, outsider)
        for each in everyone:
            await each.connect()
        assert (alice.uid, alice.name) == ("alice", "Alice") and alice.expires_at > time.time()

        alice_room = await alice.join(ROOM, call_type="video")
        events = []
        alice_room.on_event(events.append)
        bob_room = await bob.join(ROOM)
        await carol.join(ROOM)
        # Participants take the two seats; the bot (like a moderator) takes a reserved one.
        bot_room = await bot.join(ROOM, events="notable")
        with pytest.raises(CallFullError) as full:
            await dave.join(ROOM)
        assert full.value.code == "ERR_CALL_FULL" and ROOM not in dave.rooms
        with pytest.raises(NotGroupMemberError):
            await outsider.join(ROOM)
        watcher = await outsider.observe("elsewhere")
        assert watcher.participants == []

        # The join's answer says what each may do; the welcome what the token gives.
        assert alice_room.rights["operator"] is True and "remove" in alice_room.rights["actions"]
        assert bob_room.rights["operator"] is False and bob_room.rights["actions"] == []
        assert "lower_hand" in bot_room.rights["actions"] and "remove" not in bot_room.rights["actions"]
        assert alice.welcome["rooms"] == {ROOM: "moderator"} and bot.welcome["capabilities"] == ["mute"]
        await alice_room.wait_for(lambda room: len(room.participants) == 4)
        assert [person.uid for person in alice_room.participants] == ["alice", "bob", "carol", "notetaker"]
        assert alice_room.participant("notetaker").role == "bot"
        assert alice_room.room_state["participantCount"] == 4 and alice_room.room_state["capacity"] == 2

        ack = await bob_room.set_state(audio_muted=True, hand_raised=True)
        assert ack.changed and ack.room == ROOM
        assert not (await bob_room.raise_hand()).changed
        await alice_room.wait_for(lambda room: room.participant("bob").hand_raised)
        # The bot lowers Bob's hand with its `mute` capability; it may not remove anyone.
        await bot_room.lower_hand_of("bob", reason="answered")
        await bob_room.wait_for(lambda room: not room.participant("bob").hand_raised)
        with pytest.raises(ForbiddenError):
            await bot_room.remove("carol")
        with pytest.raises(ForbiddenError):
            await bob_room.mute("alice")
        with pytest.raises(NotFoundError):
            await alice_room.mute("dave")
        muted = await alice_room.query("muted")
        assert muted["uids"] == ["bob"]
        # Bob reports his own speaking; the roster shows it once it held for the speaker rule.
        await bob_room.report_speaking(True)
        await alice_room.wait_for(lambda room: room.room_state.get("activeSpeaker") == "bob")
        await bob_room.report_speaking(False)
        await alice_room.wait_for(lambda room: room.room_state.get("activeSpeaker") is None)
        names = [event.name for event in events]
        assert "participant.hand_raised" in names and "participant.hand_lowered" in names
        lowered = next(event for event in events if event.name == "participant.hand_lowered")
        assert (lowered.actor, lowered.uid, lowered.reason) == ("notetaker", "bob", "answered")

        # A meeting message reaches Dave, a member of the group in no room, through `on_meeting`.
        meetings = []
        dave.on_meeting(meetings.append)
        ack = await alice.meeting(ROOM, "call-1", text="Standup")
        assert ack.seq > 0
        meeting = await dave.active_meeting(ROOM)
        assert meeting["sessionId"] == "call-1" and meeting["sender"] == "alice"
        for _ in range(50):
            if meetings:
                break
            await asyncio.sleep(0.05)
        assert [(event.name, event.data["text"]) for event in meetings] == [("meeting.message", "Standup")]

        # Views: Alice switches to raised hands; Carol raises hers and enters the view.
        await alice_room.change_view(View.raised_hands())
        assert alice_room.participants == []
        await carol.rooms[ROOM].raise_hand()
        await alice_room.wait_for(lambda room: [person.uid for person in room.participants] == ["carol"])
        assert alice_room.store.checksum == alice_room.store.server_checksum

        await bob_room.leave()
        assert not bob_room.active and ROOM not in bob.rooms
        for each in everyone:
            await each.close()
        assert alice.status == "closed" and not alice_room.active

    run(scenario())


def test_a_reconnect_after_the_token_expired_asks_the_provider(rollcall):
    server = rollcall(**{"auth.leeway_seconds": 0, "rooms.reconnect_grace_ms": 8000})
    outage = ReconnectPolicy(max_attempts=3, initial_delay=2.5, max_delay=2.5, jitter=0)

    async def scenario():
        alice = client(server, "alice", rooms=[ROOM], role="moderator")
        await alice.connect()
        alice_room = await alice.join(ROOM)
        asked = []

        def provider():
            asked.append(time.time())
            return mint_token(key(), "bob", name="Bob", groups=[ROOM], ttl=3600)

        # Bob's first token lives two seconds; the provider gives the later ones.
        with_provider = Client(server.url, mint_token(key(), "bob", name="Bob", groups=[ROOM], ttl=2),
                               token_provider=provider, reconnect=outage, request_timeout=5, refresh_margin=0.5)
        # Carol has no provider: her reconnect presents the expired token.
        without = Client(server.url, mint_token(key(), "carol", groups=[ROOM], ttl=2), reconnect=outage,
                         request_timeout=5)
        await with_provider.connect()
        await without.connect()
        bob_room = await with_provider.join(ROOM)
        carol_room = await without.join(ROOM)
        changes = []
        bob_room.on_change(changes.append)
        statuses = []
        without.on_status(statuses.append)

        with_provider.drop_connection()
        without.drop_connection()
        await alice_room.set_state(presenting=True)
        await bob_room.wait_for(lambda room: room.participant("alice").presenting, timeout=10)
        assert with_provider.status == "connected" and len(asked) >= 1
        assert isinstance(changes[0], ConnectionLost) and Resumed(True) in changes
        assert bob_room.recovered is True and bob_room.participant("bob").state == "joined"

        await asyncio.wait_for(without.wait_closed(), 10)
        assert without.close_info.code == 4001 and statuses == ["reconnecting", "closed"]
        assert not carol_room.active
        for each in (alice, with_provider):
            await each.close()

    run(scenario())


def test_a_device_joining_from_another_window_ends_the_first_room_which_does_not_rejoin(rollcall):
    server = rollcall()

    async def scenario():
        first = client(server, "ivy", groups=[ROOM])
        second = client(server, "ivy", groups=[ROOM])
        await first.connect()
        await second.connect()
        first_room = await first.join(ROOM)
        first_changes = []
        first_room.on_change(first_changes.append)
        second_room = await second.join(ROOM)
        second_changes = []
        second_room.on_change(second_changes.append)
        deadline = time.time() + 10
        while first_room.active and time.time() < deadline:
            await asyncio.sleep(0.02)
        assert Unsubscribed("replaced") in first_changes
        ended = first_changes[-1]
        assert isinstance(ended, Ended) and isinstance(ended.error, UnsubscribedError)
        assert ended.error.reason == "replaced"
        assert ROOM not in first.rooms
        # The first window's connection drops and comes back without taking the room back.
        statuses = []
        first.on_status(statuses.append)
        first.drop_connection()
        while statuses[-1:] != ["connected"] and time.time() < deadline:
            await asyncio.sleep(0.02)
        await first.ping()
        await asyncio.sleep(0.2)
        assert not any(isinstance(change, Unsubscribed) for change in second_changes)
        assert second_room.active and second_room.participant("ivy").state == "joined"
        for each in (first, second):
            await each.close()

    run(scenario())


def test_the_provider_refreshes_the_session_before_the_token_expires(rollcall):
    server = rollcall(**{"auth.leeway_seconds": 0})

    async def scenario():
        tokens = []

        async def provider():
            await asyncio.sleep(0)
            tokens.append(mint_token(key(), "bob", groups=[ROOM], ttl=3))
            return tokens[-1]

        bob = client(server, "bob", token_provider=provider, refresh_margin=1.5)
        errors = []
        bob.on_server_error(errors.append)
        await bob.connect()
        first_expiry = bob.expires_at
        room = await bob.join(ROOM)
        await asyncio.sleep(5)
        # Without a refresh the gateway would have closed the session with 4002 after three seconds.
        assert bob.status == "connected" and errors == []
        assert len(tokens) >= 3 and bob.expires_at > first_expiry
        assert (await room.set_audio_muted(True)).changed
        await bob.close()

    run(scenario())


def test_final_close_codes_end_the_client_and_4009_reconnects(rollcall):
    server = rollcall(**{"api.keys": f"ops:{API_SECRET}", "rooms.reconnect_grace_ms": 3000})
    api = ServerAPI(http_base(server), API_SECRET, timeout=5)

    async def scenario():
        alice = client(server, "alice", rooms=[ROOM], role="moderator")
        bob = client(server, "bob", groups=[ROOM])
        carol = client(server, "carol", groups=[ROOM])
        for each in (alice, bob, carol):
            await each.connect()
        alice_room = await alice.join(ROOM)
        bob_room = await bob.join(ROOM)
        carol_room = await carol.join(ROOM)
        bob_changes, bob_statuses, carol_statuses = [], [], []
        bob_room.on_change(bob_changes.append)
        bob.on_status(bob_statuses.append)
        carol.on_status(carol_statuses.append)

        # Removal (4003) is final: no reconnect, the room ends with the close.
        await alice_room.remove("carol", reason="spam")
        await asyncio.wait_for(carol.wait_closed(), 5)
        assert carol.close_info.code == 4003 and carol_statuses == ["closed"]
        assert not carol_room.active

        # The server API's disconnect (4009) is not final: Bob comes back and resumes.
        assert api.disconnect("bob", reason="maintenance") == 1
        await bob_room.wait_for(lambda room: Resumed(True) in bob_changes, timeout=10)
        assert bob_statuses[:2] == ["reconnecting", "connected"] and bob.status == "connected"
        assert bob.close_info.code == 4009
        await alice_room.wait_for(lambda room: room.participant("bob").state == "joined")
        ended = [change for change in bob_changes if isinstance(change, Ended)]
        assert ended == []
        for each in (alice, bob):
            await each.close()

    run(scenario())


def test_the_server_api_blocking_and_async(rollcall):
    server = rollcall(**{"api.keys": f"ops:{API_SECRET}"})
    api = ServerAPI(http_base(server), API_SECRET, timeout=5)
    async_api = AsyncServerAPI(http_base(server), API_SECRET, timeout=5)

    async def scenario():
        watcher = client(server, "ops", rooms=[ROOM], role="admin")
        bob = client(server, "bob", groups=[ROOM])
        await watcher.connect()
        await bob.connect()
        bob_room = await bob.join(ROOM)
        watched = await watcher.observe(ROOM)
        events = []
        watched.on_event(events.append)

        ack = await async_api.publish_meeting(ROOM, "call-9", text="Standup starts now")
        assert ack.room == ROOM and ack.changed
        assert (await async_api.set_recording(ROOM, True)).changed
        assert (await async_api.set_speaker(ROOM, "bob")).changed
        assert (await async_api.set_audio_mode(ROOM, "bob", "earpiece")).changed
        ack = await async_api.moderate(ROOM, "mute", target="bob", reason="echo")
        assert ack.changed and ack.seq > 0
        await watched.wait_for(lambda room: room.participant("bob") is not None
                               and room.participant("bob").muted_by_moderator)
        assert watched.room_state["recording"] is True
        rooms = await async_api.rooms()
        assert [(entry["room"], entry["participants"]) for entry in rooms] == [(ROOM, 1)]
        state = await asyncio.to_thread(api.room, ROOM)
        assert state["roster"]["participants"]["bob"]["audioMuted"] is True
        assert state["roster"]["participants"]["bob"] == watched.roster["participants"]["bob"]
        # The speaker shows once it held for the room's speaker rule.
        await watched.wait_for(lambda room: room.room_state.get("activeSpeaker") == "bob")
        assert watched.participant("bob").audio_mode == "earpiece"
        names = [event.name for event in events]
        assert names[:3] == ["meeting.message", "media.recording_started", "media.audio_mode_changed"], names
        assert "participant.active_speaker_shown" in names
        muted = next(event for event in events if event.name == "moderation.muted")
        assert (muted.actor, muted.reason) == ("api:ops", "echo")
        history = await async_api.history(ROOM, types=["meeting.message"])
        assert [event["data"]["sessionId"] for event in history["events"]] == ["call-9"]
        audit = await async_api.audit(room=ROOM)
        assert any(entry["actor"] == "api:ops" and entry["target"] == "bob" for entry in audit["actions"]), audit

        with pytest.raises(NotFoundError) as missing:
            await asyncio.to_thread(api.room, "no-such-room")
        assert missing.value.status == 404
        with pytest.raises(NotFoundError):
            await async_api.moderate(ROOM, "mute", target="nobody")
        with pytest.raises(UnauthorizedError):
            await asyncio.to_thread(ServerAPI(http_base(server), "not-the-key-0123456789").rooms)
        assert await async_api.disconnect("nobody") == 0
        assert bob_room.active
        for each in (watcher, bob):
            await each.close()

    run(scenario())


def cli_token(*arguments):
    result = subprocess.run([str(BINARY), "token", "--config", str(CONFIG), *arguments], cwd=PROJECT_ROOT,
                            capture_output=True, text=True, timeout=10, check=True)
    return result.stdout.strip()


def payload_of(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


@pytest.mark.parametrize(
    ("arguments", "python", "settings"),
    [
        (["--uid", "alice"], {}, {}),
        (["--uid", "bob", "--name", "Bob Zoë", "--avatar", "https://example.com/b.png", "--room", "standup",
          "--room", "design", "--role", "moderator", "--group", "g1", "--group", "g2"],
         {"name": "Bob Zoë", "avatar": "https://example.com/b.png", "rooms": ["standup", "design"],
          "role": "moderator", "groups": ["g1", "g2"]}, {}),
        (["--uid", "notetaker", "--room", "standup", "--role", "bot", "--caps", "mute,remove"],
         {"rooms": {"standup": "bot"}, "caps": ["mute", "remove"]},
         {"auth.issuer": "backend", "auth.audience": "rollcall"}),
        (["--uid", "carol", "--group", "standup", "--attr", "title=CTO", "--attr", "badge=guest=yes"],
         {"groups": ["standup"], "attributes": {"title": "CTO", "badge": "guest=yes"}}, {}),
        (["--uid", "guest", "--room", "webinar", "--room", "briefing", "--admission", "wait", "--attr", "company=acme"],
         {"rooms": ["webinar", "briefing"], "attributes": {"company": "acme"},
          "admission": {"webinar": "wait", "briefing": "wait"}}, {}),
    ],
)
def test_tokens_from_rollcall_token_and_from_python_are_the_same_bytes(arguments, python, settings):
    kid, secret = configured_key()
    sets = [item for name, value in settings.items() for item in ("--set", f"{name}={value}")]
    token = cli_token(*arguments, "--ttl", "600", *sets)
    claims = verify_token(token, key(), issuer=settings.get("auth.issuer"), audience=settings.get("auth.audience"))
    assert claims.kid == kid and claims.expires_at - claims.issued_at == 600
    payload = payload_of(token)
    again = mint_token(key(), payload["sub"], issued_at=payload["iat"], ttl=600, issuer=settings.get("auth.issuer"),
                       audience=settings.get("auth.audience"), **python)
    assert again == token


def test_a_bot_token_minted_in_python_moderates(rollcall):
    server = rollcall()

    async def scenario():
        bot_token = mint_token(key(), "helper", name="Helper", rooms={ROOM: "bot"}, caps=["mute"], ttl=120)
        async with Client(server.url, bot_token, request_timeout=5) as bot, \
                client(server, "bob", groups=[ROOM]) as bob:
            bot_room = await bot.join(ROOM, events="none")
            bob_room = await bob.join(ROOM)
            assert bot.uid == "helper" and bot_room.participant("helper").role == "bot"
            assert (await bot_room.mute("bob", reason="noise")).changed
            await bob_room.wait_for(lambda room: room.participant("bob").audio_muted)
        assert bot.status == "closed" and bob.status == "closed"

    run(scenario())


def test_attributes_metadata_permissions_and_the_hand_queue(rollcall):
    server = rollcall(**{"api.keys": f"ops:{API_SECRET}"})
    api = AsyncServerAPI(http_base(server), API_SECRET, timeout=5)

    async def scenario():
        alice = client(server, "alice", rooms=[ROOM], role="moderator")
        bob = client(server, "bob", groups=[ROOM], attributes={"badge": "guest"})
        carol = client(server, "carol", groups=[ROOM])
        for each in (alice, bob, carol):
            await each.connect()
        alice_room = await alice.join(ROOM)
        bob_room = await bob.join(ROOM)
        carol_room = await carol.join(ROOM)

        # Bob's own attributes beside the one his token vouches for, which he cannot change.
        assert (await bob_room.set_attributes({"pronouns": "he/him"})).changed
        with pytest.raises(ForbiddenError):
            await bob_room.set_attributes({"badge": "host"})
        with pytest.raises(TooLargeError):
            await bob_room.set_attributes({"bio": "x" * 300})
        await alice_room.wait_for(lambda room: room.participant("bob").attributes == {"badge": "guest",
                                                                                     "pronouns": "he/him"})
        await api.set_attributes(ROOM, "carol", {"title": "CTO"})
        await bob_room.wait_for(lambda room: room.participant("carol").attributes == {"title": "CTO"})

        # Room metadata: moderators set it, participants may not.
        assert (await alice_room.set_metadata({"topic": "Q3 planning"})).changed
        with pytest.raises(ForbiddenError):
            await bob_room.set_metadata({"topic": "lunch"})
        await bob_room.wait_for(lambda room: room.room_state.get("metadata") == {"topic": "Q3 planning"})
        await api.set_metadata(ROOM, {"topic": None})
        await bob_room.wait_for(lambda room: "metadata" not in room.room_state)

        # The hand queue: the raised-hands view keeps the order the hands went up in.
        await carol_room.raise_hand()
        await asyncio.sleep(0.05)  # raisedAt counts milliseconds: the two hands go up in different ones
        await bob_room.raise_hand()
        await alice_room.wait_for(lambda room: all(room.participant(uid).hand_raised for uid in ("bob", "carol")))
        hands = sorted((person.raised_at, person.uid) for person in alice_room.participants if person.hand_raised)
        assert [uid for _, uid in hands] == ["carol", "bob"]
        assert (await alice_room.lower_all_hands(reason="moving on")).changed
        await carol_room.wait_for(lambda room: not any(person.hand_raised for person in room.participants))

        # A hard mute refuses Bob's own unmuting until Alice asks him to unmute.
        assert (await alice_room.mute("bob", hard=True, duration=600)).changed
        await bob_room.wait_for(lambda room: not room.participant("bob").may_unmute)
        assert "restrictedUntil" in bob_room.participant("bob").permissions
        with pytest.raises(ForbiddenError):
            await bob_room.set_audio_muted(False)
        await alice_room.ask_unmute("bob")
        await bob_room.wait_for(lambda room: room.participant("bob").may_unmute)
        assert (await bob_room.set_audio_muted(False)).changed
        # Permissions: Carol may not share until the server API allows it again.
        await alice_room.set_permissions("carol", share=False)
        await carol_room.wait_for(lambda room: room.participant("carol").permissions.get("share") is False)
        with pytest.raises(ForbiddenError):
            await carol_room.set_presenting(True)
        await api.set_permissions(ROOM, "carol", {"share": True})
        await carol_room.wait_for(lambda room: room.participant("carol").permissions == {})
        assert (await carol_room.set_presenting(True)).changed
        for each in (alice, bob, carol):
            await each.close()

    run(scenario())
