"""A moderator bot for one room, on the Rollcall asyncio client.

It joins the room's call as a bot and:

- lowers hands left up for longer than `--hand-minutes` minutes;
- mutes a participant when a moderator asks for it in the meeting chat: a meeting message `/mute UID`;
- posts a notice when the call passes its capacity (more people in the call than the room has seats; moderators
  and bots sit on reserved seats above it);
- answers the room's waiting room (docs/PROTOCOL.md, "Waiting room"), as a webinar host would, when given an
  admission rule: it admits the registered attendees, those whose token attributes (`attrs`, which the backend
  vouches for) match `--admit-attribute KEY=VALUE[,VALUE...]` (such as `company=acme,globex`) or whose uid is an
  `--admit-uid`, while the call has a free seat (an attendee who would find the call full keeps waiting until
  someone leaves), and turns the others away with `--deny-reason` (or, with `--unmatched hold`, leaves them for a
  human moderator). `--require-admission` turns the waiting room on when the bot joins. It looks again whenever
  the roster's room entry says how many wait (`waiting`), and every `--check-seconds`.

Rollcall has no chat message of its own: commands and notices travel as group meeting messages (docs/PROTOCOL.md,
"meeting"), which every member of the room's group receives. They go out with `active: false` and a session id of
their own, which leaves the group's meeting as it is (an `active: false` for another session does not end the
meeting that is on), so a moderator's app sends `{"type":"meeting","group":ROOM,"sessionId":"chat",
"active":false,"text":"/mute bob"}`.

Run it against a local gateway (`rollcall serve`) with the development key of config/rollcall.conf, which it signs
its own bot token with:

    python examples/moderator_bot.py --url ws://127.0.0.1:8080/v1/ws --room standup \\
        --key dev:rollcall-development-key-change-me

or with a token from your backend (`rollcall token --uid moderator-bot --room standup --role bot --caps mute`):
`--token TOKEN`; the waiting room needs the `admit` capability as well: `--caps mute,admit`. A webinar bot:

    python examples/moderator_bot.py --url ws://127.0.0.1:8080/v1/ws --room webinar \\
        --key dev:rollcall-development-key-change-me --require-admission \\
        --admit-attribute company=acme,globex --deny-reason "this webinar is for registered attendees"

It logs one line per action and, when stopped (Ctrl-C, SIGTERM or `--exit-after`), prints the
roster as it last saw it, as JSON, on a line starting with `roster `.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from rollcall import (
    Client,
    EventReceived,
    ForbiddenError,
    NotFoundError,
    Room,
    RoomChange,
    ServerError,
    SnapshotReplaced,
    TokenKey,
    WaitingEntry,
    mint_token,
)

BOT_UID = "moderator-bot"
NOTICE_SESSION = "moderator-bot-notice"


SEATED_ROLES = ("participant", "viewer")
"""The roles that take the room's seats (moderators, admins and bots sit on reserved seats above them)."""

DEFAULT_DENY_REASON = "this webinar is for registered attendees"


def log(line: str) -> None:
    """One line of the bot's log on stdout."""
    print(line, flush=True)


@dataclass(frozen=True)
class AdmissionRule:
    """Who the bot lets in from the waiting room.

    Attributes:
        attributes: token attribute to the values that admit (`company` -> {`acme`, `globex`}); any one matching
            admits.
        uids: users admitted by uid.
        deny_reason: the reason the others are turned away with.
        unmatched: `deny` turns the others away; `hold` leaves them waiting for a human moderator.
    """

    attributes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    uids: frozenset[str] = frozenset()
    deny_reason: str = DEFAULT_DENY_REASON
    unmatched: Literal["deny", "hold"] = "deny"

    def matches(self, entry: WaitingEntry) -> str | None:
        """Why the rule admits the entry (`uid` or `KEY=VALUE`), or None when it does not."""
        if entry.uid in self.uids:
            return "uid"
        for key, values in self.attributes.items():
            value = entry.attributes.get(key)
            if value is not None and value in values:
                return f"{key}={value}"
        return None

    @classmethod
    def parse(cls, attributes: list[str], uids: list[str], deny_reason: str, unmatched: str) -> AdmissionRule:
        """Reads the command line's `--admit-attribute KEY=VALUE[,VALUE...]` and `--admit-uid` options."""
        allowed: dict[str, frozenset[str]] = {}
        for text in attributes:
            key, equals, values = text.partition("=")
            if not key or not equals or not values:
                raise ValueError(f"--admit-attribute takes KEY=VALUE[,VALUE...], not {text!r}")
            allowed[key] = allowed.get(key, frozenset()) | {value for value in values.split(",") if value}
        return cls(allowed, frozenset(uids), deny_reason, "hold" if unmatched == "hold" else "deny")


class ModeratorBot:
    """The bot's rules, on a room it joined.

    Attributes:
        hand_limit: seconds a hand may stay up.
        capacity: the seats the notice counts against; None takes the room's.
    """

    def __init__(
        self,
        client: Client,
        room: Room,
        *,
        hand_limit: float,
        capacity: int | None,
        admission: AdmissionRule | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.room = room
        self.hand_limit = hand_limit
        self.capacity = capacity
        self.admission = admission
        self.clock = clock
        self.raised_since: dict[str, float] = {}
        self.over_capacity = False
        self.held_for_seat: set[str] = set()
        self.seen_waiting = (0, 0)
        # Chat commands (sender, text), and None when the waiting room or the seats changed.
        self.commands: asyncio.Queue[tuple[str, str] | None] = asyncio.Queue()

    # MARK: Watching the room

    def on_change(self, change: RoomChange) -> None:
        """Keeps the hand timers and the capacity state; queues chat commands, and a look at the waiting room when
        the number waiting or the people in the call changed (called for every change)."""
        if self.admission is not None:
            waiting = (self.room.waiting_count, self.seated())
            if waiting != self.seen_waiting:
                self.seen_waiting = waiting
                if waiting[0] > 0:
                    self.commands.put_nowait(None)
        if isinstance(change, EventReceived):
            event = change.event
            if event.name == "meeting.message" and isinstance(event.data.get("text"), str):
                sender = str(event.data.get("sender") or event.actor or "")
                if sender != self.client.uid:
                    self.commands.put_nowait((sender, event.data["text"]))
            return
        now = self.clock()
        up = {person.uid for person in self.room.participants if person.hand_raised}
        for uid in up - set(self.raised_since):
            self.raised_since[uid] = now
        for uid in set(self.raised_since) - up:
            del self.raised_since[uid]

    def call_size(self) -> tuple[int, int | None]:
        """The people in the call and the seats, as the roster's room entry says."""
        state = self.room.room_state
        count = state.get("participantCount")
        seats = self.capacity if self.capacity is not None else state.get("capacity")
        return (count if isinstance(count, int) else 0, seats if isinstance(seats, int) else None)

    def seated(self) -> int:
        """The people in the call on the room's seats (participants and viewers)."""
        return sum(1 for person in self.room.participants if person.role in SEATED_ROLES)

    def free_seats(self) -> int | None:
        """The seats left for participants and viewers; None when the room entry does not say."""
        seats = self.capacity if self.capacity is not None else self.room.room_state.get("capacity")
        return max(0, seats - self.seated()) if isinstance(seats, int) else None

    # MARK: Acting

    async def answer_waiting_room(self) -> None:
        """Admits the waiting users the rule lets in while seats are free, in arrival order, and denies the others
        (or leaves them, with `unmatched` `hold`)."""
        rule = self.admission
        if rule is None or self.room.waiting_count == 0:
            return
        free = self.free_seats()
        for entry in await self.room.waiting():
            why = rule.matches(entry)
            try:
                if why is None:
                    if rule.unmatched == "deny":
                        await self.room.deny(entry.uid, reason=rule.deny_reason)
                        log(f"denied {entry.uid}: {rule.deny_reason}")
                elif free is not None and free <= 0:
                    if entry.uid not in self.held_for_seat:
                        self.held_for_seat.add(entry.uid)
                        log(f"kept {entry.uid} waiting: no free seat")
                else:
                    await self.room.admit(entry.uid)
                    self.held_for_seat.discard(entry.uid)
                    free = free - 1 if free is not None else None
                    log(f"admitted {entry.uid} ({why})")
            except NotFoundError:
                self.held_for_seat.discard(entry.uid)  # it left the waiting room meanwhile

    async def lower_old_hands(self) -> None:
        """Lowers every hand up for longer than the limit."""
        now = self.clock()
        for uid, since in list(self.raised_since.items()):
            if now - since < self.hand_limit:
                continue
            minutes = self.hand_limit / 60
            try:
                await self.room.lower_hand_of(uid, reason=f"hand up for more than {minutes:g} minutes")
                log(f"lowered the hand of {uid}")
            except NotFoundError:
                pass
            self.raised_since.pop(uid, None)

    async def check_capacity(self) -> None:
        """Posts a notice when the call passes its capacity, once until it is back within it."""
        count, seats = self.call_size()
        if seats is None:
            return
        if count > seats and not self.over_capacity:
            self.over_capacity = True
            await self.say(f"The call has {count} participants, over its capacity of {seats}.")
        elif count <= seats:
            self.over_capacity = False

    async def handle_command(self, sender: str, text: str) -> None:
        """Runs a chat command from a moderator: `/mute UID`."""
        words = text.split()
        if len(words) != 2 or words[0] != "/mute":
            return
        if not await self.is_moderator(sender):
            log(f"ignored {text!r} from {sender}: not a moderator")
            return
        target = words[1]
        try:
            await self.room.mute(target, reason=f"asked by {sender}")
            log(f"muted {target} (asked by {sender})")
        except (NotFoundError, ForbiddenError) as refusal:
            log(f"could not mute {target}: {refusal.code}")

    async def is_moderator(self, uid: str) -> bool:
        """Whether a user operates the room: from the roster, or asked of the gateway for one not in the call."""
        person = self.room.participant(uid)
        if person is not None:
            return person.is_operator
        operators = await self.room.query("operators")
        return uid in (operators.get("uids") or [])

    async def say(self, text: str) -> None:
        """Posts a notice to the room's group; a session of its own with `active: false` leaves the group's
        meeting as it is."""
        call_type = str(self.room.room_state.get("callType") or "video")
        await self.client.meeting(self.room.room, NOTICE_SESSION, call_type=call_type, text=text, active=False)
        log(f"notice: {text}")

    # MARK: Running

    async def run(self, stop: asyncio.Event, check_seconds: float) -> None:
        """Acts until `stop` is set: commands and the waiting room as they change, hands, capacity and the waiting
        room every `check_seconds`."""
        remove = self.room.on_change(self.on_change)
        self.on_change(SnapshotReplaced())  # the roster the room was joined with
        try:
            while not stop.is_set() and self.room.active:
                try:
                    command = await asyncio.wait_for(self.commands.get(), check_seconds)
                    if command is not None:
                        await self.handle_command(*command)
                except asyncio.TimeoutError:
                    pass
                try:
                    await self.answer_waiting_room()
                    await self.lower_old_hands()
                    await self.check_capacity()
                except ServerError as error:
                    log(f"refused: {error}")
        finally:
            remove()

    def roster_summary(self) -> dict[str, dict[str, object]]:
        """The roster as the bot last saw it, one entry per participant."""
        return {
            person.uid: {
                "role": person.role,
                "handRaised": person.hand_raised,
                "audioMuted": person.audio_muted,
                "mutedByModerator": person.muted_by_moderator,
            }
            for person in self.room.participants
        }


async def main(arguments: argparse.Namespace) -> None:
    if arguments.token:
        token = arguments.token
    else:
        key = TokenKey.parse(arguments.key)
        admits = bool(arguments.admit_attribute or arguments.admit_uid or arguments.require_admission)
        caps = ["mute", "admit"] if admits else ["mute"]
        token = mint_token(key, BOT_UID, name="Moderator bot", rooms={arguments.room: "bot"}, caps=caps)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    if arguments.exit_after:
        loop.call_later(arguments.exit_after, stop.set)
    async with Client(arguments.url, token, device="bot") as client:
        room = await client.join(arguments.room, events="notable")
        log(f"joined {arguments.room} as {client.uid}")
        admission = None
        if arguments.admit_attribute or arguments.admit_uid:
            admission = AdmissionRule.parse(
                arguments.admit_attribute, arguments.admit_uid, arguments.deny_reason, arguments.unmatched
            )
        if arguments.require_admission:
            await room.require_admission(reason="the host lets attendees in")
            log(f"the waiting room of {arguments.room} is on")
        bot = ModeratorBot(
            client, room, hand_limit=arguments.hand_minutes * 60, capacity=arguments.capacity, admission=admission
        )
        await bot.run(stop, arguments.check_seconds)
        log("roster " + json.dumps(bot.roster_summary(), sort_keys=True))


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="ws://127.0.0.1:8080/v1/ws", help="the gateway's rooms endpoint")
    parser.add_argument("--room", default="standup", help="the room to moderate")
    credentials = parser.add_mutually_exclusive_group(required=True)
    credentials.add_argument("--token", help="a bot token with the mute capability")
    credentials.add_argument("--key", help="kid:secret of auth.keys, to sign the bot's own token")
    parser.add_argument("--hand-minutes", type=float, default=5.0, help="how long a hand may stay up")
    parser.add_argument("--capacity", type=int, help="seats to count against (default: the room's)")
    parser.add_argument("--check-seconds", type=float, default=5.0,
                        help="how often hands, capacity and the waiting room are checked")
    parser.add_argument("--exit-after", type=float, help="stop after this many seconds")
    waiting = parser.add_argument_group("the waiting room (the bot needs the admit capability)")
    waiting.add_argument("--require-admission", action="store_true", help="turn the waiting room on when joining")
    waiting.add_argument("--admit-attribute", action="append", default=[], metavar="KEY=VALUE[,VALUE...]",
                         help="admit waiting users whose token attribute KEY is one of the values (repeatable)")
    waiting.add_argument("--admit-uid", action="append", default=[], metavar="UID",
                         help="admit this waiting user (repeatable)")
    waiting.add_argument("--deny-reason", default=DEFAULT_DENY_REASON, help="the reason the others are denied with")
    waiting.add_argument("--unmatched", choices=("deny", "hold"), default="deny",
                         help="deny the users the rule does not admit, or leave them for a human moderator")
    arguments = parser.parse_args()
    try:
        AdmissionRule.parse(arguments.admit_attribute, arguments.admit_uid, arguments.deny_reason,
                            arguments.unmatched)
    except ValueError as error:
        parser.error(str(error))
    return arguments


if __name__ == "__main__":
    asyncio.run(main(parse()))
