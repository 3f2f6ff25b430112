"""A backend's side of a group meeting, on the Rollcall server API (docs/API.md) and the token helpers.

It mints a token for each member so their apps can join, announces the meeting to the group (every connected
member hears of it, in the room or not), then lists the active calls: each room with people in it or a meeting on,
with who is in the call.

Run it against a local gateway started with an API key and the development signing key of config/rollcall.conf:

    rollcall serve --set api.keys=backend:backend-secret-0123456789
    python examples/backend.py --api http://127.0.0.1:8080 --api-key backend-secret-0123456789 \\
        --key dev:rollcall-development-key-change-me --group standup --member alice --member bob

It prints `token UID TOKEN` per member, `meeting GROUP SEQ`, then `call ROOM ...` per active call.
"""

from __future__ import annotations

import argparse
import uuid

from rollcall import ServerAPI, TokenKey, mint_token


def start_meeting(api: ServerAPI, key: TokenKey, group: str, members: list[str], text: str) -> str:
    """Mints the members' tokens and announces the meeting; returns its session id.

    Args:
        api: the server API.
        key: the signing key shared with the gateway.
        group: the group (its room is the group id).
        members: the members' uids.
        text: the meeting's title.
    """
    for uid in members:
        print("token", uid, mint_token(key, uid, name=uid.title(), groups=[group], ttl=3600), flush=True)
    session_id = f"call-{uuid.uuid4().hex[:8]}"
    ack = api.publish_meeting(group, session_id, call_type="video", text=text)
    print("meeting", group, ack.seq, session_id, flush=True)
    return session_id


def list_active_calls(api: ServerAPI) -> None:
    """Prints each room with people in the call or an active meeting: its seq, the people and the meeting."""
    for summary in api.rooms():
        meeting = summary.get("activeMeeting")
        if not summary.get("participants") and not meeting:
            continue
        room = api.room(summary["room"])
        people = [entry["uid"] for entry in room["participants"] if entry.get("isJoined")]
        title = meeting.get("text") if isinstance(meeting, dict) else None
        print("call", summary["room"], f"seq={room['seq']}", f"in-call={','.join(people) or '-'}",
              f"meeting={title or '-'}", flush=True)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", default="http://127.0.0.1:8080", help="the gateway's HTTP address")
    parser.add_argument("--api-key", required=True, help="the secret of a key from api.keys")
    parser.add_argument("--key", required=True, help="kid:secret of auth.keys, to sign the members' tokens")
    parser.add_argument("--group", default="standup", help="the group whose meeting starts")
    parser.add_argument("--member", action="append", default=[], help="a member to mint a token for (repeatable)")
    parser.add_argument("--text", default="The group meeting starts now", help="the meeting's title")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse()
    api = ServerAPI(arguments.api, arguments.api_key)
    start_meeting(api, TokenKey.parse(arguments.key), arguments.group, arguments.member, arguments.text)
    list_active_calls(api)
