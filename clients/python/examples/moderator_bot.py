"""A moderator bot for one room, on the Rollcall asyncio client.

It joins the room's call as a bot and:

- lowers hands left up for longer than `--hand-minutes` minutes;
- mutes a participant when a moderator asks for it in the meeting chat: a meeting message `/mute UID`;
- posts a notice when the call passes its capacity (more people in the call than the room has seats; moderators
  and bots sit on reserved seats above it).

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
`--token TOKEN`. It logs one line per action and, when stopped (Ctrl-C, SIGTERM or `--exit-after`), prints the
roster as it last saw it, as JSON, on a line starting with `roster `.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import time
from collections.abc import Callable

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
    mint_token,
)

BOT_UID = "moderator-bot"
NOTICE_SESSION = "moderator-bot-notice"


def log(line: str) -> None:
    """One line of the bot's log on stdout."""
    print(line, flush=True)


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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.room = room
        self.hand_limit = hand_limit
        self.capacity = capacity
        self.clock = clock
        self.raised_since: dict[str, float] = {}
        self.over_capacity = False
        self.commands: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    # MARK: Watching the room

    def on_change(self, change: RoomChange) -> None:
        """Keeps the hand timers and the capacity state; queues chat commands (called for every change)."""
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

    # MARK: Acting

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
        """Acts until `stop` is set: commands as they come, hands and capacity every `check_seconds`."""
        remove = self.room.on_change(self.on_change)
        self.on_change(SnapshotReplaced())  # the roster the room was joined with
        try:
            while not stop.is_set() and self.room.active:
                try:
                    sender, text = await asyncio.wait_for(self.commands.get(), check_seconds)
                    await self.handle_command(sender, text)
                except asyncio.TimeoutError:
                    pass
                except ServerError as error:
                    log(f"refused: {error}")
                await self.lower_old_hands()
                await self.check_capacity()
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
        token = mint_token(key, BOT_UID, name="Moderator bot", rooms={arguments.room: "bot"}, caps=["mute"])
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    if arguments.exit_after:
        loop.call_later(arguments.exit_after, stop.set)
    async with Client(arguments.url, token, device="bot") as client:
        room = await client.join(arguments.room, events="notable")
        log(f"joined {arguments.room} as {client.uid}")
        bot = ModeratorBot(client, room, hand_limit=arguments.hand_minutes * 60, capacity=arguments.capacity)
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
    parser.add_argument("--check-seconds", type=float, default=5.0, help="how often hands and capacity are checked")
    parser.add_argument("--exit-after", type=float, help="stop after this many seconds")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse()))
