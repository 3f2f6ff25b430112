"""The server API's OpenAPI description (api/openapi.json): it validates as OpenAPI 3.1, the gateway serves it as
it is in the repository, it names every resource docs/API.md documents, and schemathesis fuzzes a live gateway
against it for a bounded number of cases: no 5xx, every answer matching the description (status, content type,
headers, schema), every refused request answered with its documented status and error code.
"""

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from openapi_spec_validator import validate
from test_call_end_to_end import PROJECT_ROOT, rollcall  # noqa: F401 (the fixture)

DESCRIPTION = PROJECT_ROOT / "api" / "openapi.json"
API_DOC = PROJECT_ROOT / "docs" / "API.md"
SECRET = "openapi-fuzzing-secret-0123456789"
# Cases per operation and phase; with a fixed seed the run is the same every time.
MAX_EXAMPLES = 25


def http_origin(server):
    return server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]


def get(url, key=SECRET):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, answer.headers, answer.read()


def test_the_description_is_valid_openapi_3_1_and_names_every_documented_resource():
    description = json.loads(DESCRIPTION.read_text())
    validate(description)
    assert description["openapi"].startswith("3.1")
    documented = set(re.findall(r"^### `(GET|POST) (/v1/api/[^`]+)`", API_DOC.read_text(), re.MULTILINE))
    described = {(method.upper(), path) for path, item in description["paths"].items() for method in item
                 if method in ("get", "post")}
    assert documented, "docs/API.md lists no resources"
    assert documented <= described, sorted(documented - described)
    assert described - documented == {("GET", "/v1/api/openapi.json")}, sorted(described - documented)


def test_every_error_code_the_description_names_is_under_its_status_of_the_shared_table():
    """The statuses of Tests/Vectors/protocol.json (the gateway's one table of error codes, which the server's tests
    check) are the ones the description gives each code it names."""
    description = json.loads(DESCRIPTION.read_text())
    table = json.loads((PROJECT_ROOT / "Tests" / "Vectors" / "protocol.json").read_text())
    status_of = {row["code"]: row["httpStatus"] for row in table["errorCodes"]}
    responses = description["components"]["responses"]
    named = set()
    for path, item in description["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            for status, response in operation["responses"].items():
                text = responses[response["$ref"].rsplit("/", 1)[1]]["description"] if "$ref" in response else ""
                for code in re.findall(r"`(ERR_[A-Z_]+)`", text):
                    assert status_of.get(code) == int(status), (method, path, status, code)
                    named.add(code)
    # Every code the server API can answer is described (the WebSocket-only ones may be too).
    api_codes = {"ERR_BAD_REQUEST", "ERR_UNAUTHORIZED", "ERR_FORBIDDEN", "ERR_NOT_FOUND", "ERR_METHOD_NOT_ALLOWED",
                 "ERR_TOO_LARGE", "ERR_UNAVAILABLE", "ERR_BUSY"}
    assert api_codes <= named, sorted(api_codes - named)


def test_the_gateway_serves_the_description_as_it_is_in_the_repository(rollcall):
    server = rollcall(**{"api.keys": f"fuzz:{SECRET}"})
    status, headers, body = get(f"{http_origin(server)}/v1/api/openapi.json")
    assert status == 200 and headers["Content-Type"].startswith("application/json")
    assert body == DESCRIPTION.read_bytes()
    for key in (None, "wrong-secret-0123456789"):
        try:
            get(f"{http_origin(server)}/v1/api/openapi.json", key=key)
            raise AssertionError("the description was served without a valid key")
        except urllib.error.HTTPError as refused:
            assert refused.code == 401 and json.loads(refused.read())["code"] == "ERR_UNAUTHORIZED"
    request = urllib.request.Request(f"{http_origin(server)}/v1/api/openapi.json", data=b"{}", method="POST",
                                     headers={"Authorization": f"Bearer {SECRET}"})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("POST was accepted")
    except urllib.error.HTTPError as refused:
        assert refused.code == 405 and refused.headers["Allow"] == "GET, HEAD"
        assert json.loads(refused.read())["code"] == "ERR_METHOD_NOT_ALLOWED"


def test_schemathesis_finds_no_failure_against_a_live_gateway(rollcall, tmp_path):
    server = rollcall(**{"api.keys": f"fuzz:{SECRET}", "rooms.patch_window_ms": 20})
    origin = http_origin(server)
    # A room with a meeting, so the reads have something to find.
    meeting = urllib.request.Request(f"{origin}/v1/api/rooms/standup/meeting", method="POST",
                                     data=json.dumps({"sessionId": "call-1", "text": "hello"}).encode(),
                                     headers={"Authorization": f"Bearer {SECRET}"})
    with urllib.request.urlopen(meeting, timeout=10) as answer:
        assert answer.status == 200
    schemathesis = Path(sys.executable).parent / "schemathesis"
    result = subprocess.run(
        [str(schemathesis), "run", f"{origin}/v1/api/openapi.json", "--url", origin,
         "--header", f"Authorization: Bearer {SECRET}", "--checks", "all",
         # A well-formed request may still be refused by the rules (a target not in the call, a room that does
         # not exist): the refusals are checked against their documented answers instead.
         "--exclude-checks", "positive_data_acceptance",
         "--max-examples", str(MAX_EXAMPLES), "--seed", "20261201", "--workers", "1", "--request-timeout", "10",
         "--no-color", "--report", "junit", "--report-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, cwd=tmp_path,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-12000:]
    assert re.search(r"\b\d+ passed\b|No issues found", output), output[-3000:]


def test_another_method_is_refused_with_the_documented_error_and_an_allow_header_naming_the_resources_own(rollcall):
    server = rollcall(**{"api.keys": f"fuzz:{SECRET}"})
    origin = http_origin(server)
    # A resource that answers GET answers HEAD too (RFC 9110), so its Allow names both.
    cases = [("POST", "/v1/api/rooms", "GET, HEAD"), ("POST", "/v1/api/rooms/standup", "GET, HEAD"),
             ("OPTIONS", "/v1/api/rooms/standup/actions", "POST"), ("PUT", "/v1/api/rooms/standup/meeting", "POST"),
             ("DELETE", "/v1/api/users/bob/disconnect", "POST"), ("PATCH", "/v1/api/audit", "GET, HEAD"),
             ("TRACE", "/v1/api/rooms/standup/history", "GET, HEAD"), ("HEAD", "/v1/api/rooms/standup/meeting", "POST")]
    for method, path, allowed in cases:
        request = urllib.request.Request(f"{origin}{path}", method=method, data=b"{}" if method != "TRACE" else None,
                                         headers={"Authorization": f"Bearer {SECRET}"})
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError(f"{method} {path} was accepted")
        except urllib.error.HTTPError as refused:
            assert refused.code == 405, (method, path, refused.code)
            assert refused.headers["Allow"] == allowed, (method, path, refused.headers["Allow"])
            assert refused.headers["Content-Type"] == "application/json", (method, path)
            body = refused.read()
            if method == "HEAD":
                assert body == b"", (method, path)  # an answer to HEAD has no body
            else:
                assert json.loads(body)["code"] == "ERR_METHOD_NOT_ALLOWED", (method, path)
    # HEAD on a GET resource answers as GET does, without the body.
    head = urllib.request.Request(f"{origin}/v1/api/rooms", method="HEAD", headers={"Authorization": f"Bearer {SECRET}"})
    with urllib.request.urlopen(head, timeout=10) as answer:
        assert answer.status == 200 and answer.headers["Content-Type"] == "application/json"
        assert int(answer.headers["Content-Length"]) > 0 and answer.read() == b""


def test_an_id_in_the_path_that_no_room_or_user_can_have_is_a_bad_request(rollcall):
    server = rollcall(**{"api.keys": f"fuzz:{SECRET}"})
    origin = http_origin(server)
    too_long = "r" * 129
    cases = [("GET", f"/v1/api/rooms/{too_long}/history"), ("GET", f"/v1/api/rooms/{too_long}"),
             ("GET", "/v1/api/rooms/two%20words/history"), ("POST", f"/v1/api/users/{too_long}/disconnect"),
             ("POST", "/v1/api/users/tab%09uid/disconnect"), ("POST", f"/v1/api/rooms/{too_long}/meeting")]
    for method, path in cases:
        request = urllib.request.Request(f"{origin}{path}", method=method,
                                         data=b'{"sessionId":"s-1"}' if path.endswith("meeting") else None,
                                         headers={"Authorization": f"Bearer {SECRET}"})
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError(f"{method} {path} was accepted")
        except urllib.error.HTTPError as refused:
            assert refused.code == 400, (method, path, refused.code)
            assert json.loads(refused.read())["code"] == "ERR_BAD_REQUEST", (method, path)
    # Ids of 128 bytes are fine: an unknown room is not found, an unknown user has no connection.
    try:
        get(f"{origin}/v1/api/rooms/{'r' * 128}")
        raise AssertionError("an unknown room was found")
    except urllib.error.HTTPError as missing:
        assert missing.code == 404


def test_an_empty_number_in_the_query_is_a_bad_request_not_the_default(rollcall):
    server = rollcall(**{"api.keys": f"fuzz:{SECRET}"})
    origin = http_origin(server)
    for path in ("/v1/api/rooms?limit=", "/v1/api/rooms/standup/history?after=", "/v1/api/audit?before=&limit=5",
                 "/v1/api/audit?limit="):
        try:
            get(f"{origin}{path}")
            raise AssertionError(f"{path} was accepted")
        except urllib.error.HTTPError as refused:
            assert refused.code == 400, (path, refused.code)
            assert json.loads(refused.read())["code"] == "ERR_BAD_REQUEST", path
    status, _, body = get(f"{origin}/v1/api/rooms?limit=5&after=")
    assert status == 200 and json.loads(body)["rooms"] == []
