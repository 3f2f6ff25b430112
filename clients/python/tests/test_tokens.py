"""Token minting and verification, without the gateway (the interoperability tests check both against it)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from rollcall import TokenClaims, TokenError, TokenKey, mint_token, sign_claims, verify_token

KEY = TokenKey(b"a-test-secret-of-at-least-32-bytes!!", "k1")


def part(value: object) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(text).rstrip(b"=").decode()


def test_a_minted_token_has_the_signers_header_and_member_order() -> None:
    token = mint_token(
        KEY, "bob", name="Zoë", rooms=["standup", "design"], role="moderator", groups=["g1"], caps=["mute"],
        attributes={"title": "CTO", "badge": "guest"}, issued_at=1_764_500_000, ttl=600, issuer="backend",
        audience="rollcall",
    )
    header, payload, signature = token.split(".")
    assert header == part({"alg": "HS256", "typ": "JWT", "kid": "k1"})
    assert payload == part({
        "iss": "backend", "sub": "bob", "aud": "rollcall", "exp": 1_764_500_600, "iat": 1_764_500_000,
        "name": "Zoë", "rooms": {"design": "moderator", "standup": "moderator"}, "groups": ["g1"], "caps": ["mute"],
        "attrs": {"badge": "guest", "title": "CTO"},
    })
    expected = hmac.new(KEY.secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    assert signature == base64.urlsafe_b64encode(expected).rstrip(b"=").decode()


def test_minted_tokens_verify_with_their_claims() -> None:
    token = mint_token(KEY, "bob", rooms={"standup": "bot"}, caps=["mute", "remove"], ttl=60)
    claims = verify_token(token, [TokenKey(b"x" * 32, "other"), KEY])
    assert (claims.subject, dict(claims.rooms), claims.caps, claims.kid) == (
        "bob", {"standup": "bot"}, ("mute", "remove"), "k1")


def test_a_key_without_an_id_is_chosen_for_a_token_without_kid() -> None:
    bare = TokenKey(b"y" * 40)
    token = mint_token(bare, "carol")
    assert json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "==")) == {"alg": "HS256", "typ": "JWT"}
    assert verify_token(token, [KEY, bare]).subject == "carol"
    assert TokenKey.parse("k1:" + KEY.secret.decode()) == KEY
    assert TokenKey.parse("z" * 32).kid is None


@pytest.mark.parametrize(
    ("mutate", "kind"),
    [
        (lambda t: t[:-2] + ("AA" if not t.endswith("AA") else "BA"), "bad_signature"),
        (lambda t: t + "=", "malformed"),
        (lambda t: part({"alg": "none", "typ": "JWT"}) + "." + t.split(".")[1] + ".", "unsupported_algorithm"),
        (lambda t: part({"alg": "HS256", "kid": "nobody"}) + "." + t.split(".", 1)[1], "unknown_key"),
        (lambda t: "a.b", "malformed"),
    ],
)
def test_altered_tokens_are_refused(mutate: object, kind: str) -> None:
    token = mint_token(KEY, "mallory", ttl=60)
    with pytest.raises(TokenError) as refused:
        verify_token(mutate(token), KEY)  # type: ignore[operator]
    assert refused.value.kind == kind


def test_times_are_checked_with_the_leeway() -> None:
    token = mint_token(KEY, "bob", issued_at=1000, ttl=100)
    assert verify_token(token, KEY, now=1129).subject == "bob"
    with pytest.raises(TokenError) as expired:
        verify_token(token, KEY, now=1130)
    assert expired.value.kind == "expired"
    early = mint_token(KEY, "bob", issued_at=2000, ttl=100)
    with pytest.raises(TokenError) as future:
        verify_token(early, KEY, now=1000)
    assert future.value.kind == "not_yet_valid"


def test_issuer_and_audience_are_checked_when_asked_for() -> None:
    token = mint_token(KEY, "bob", issuer="backend", audience=["rollcall", "other"])
    assert verify_token(token, KEY, issuer="backend", audience="other").audience == ("rollcall", "other")
    with pytest.raises(TokenError):
        verify_token(token, KEY, issuer="someone-else")
    with pytest.raises(TokenError):
        verify_token(token, KEY, audience="third")


@pytest.mark.parametrize(
    "claims",
    [
        TokenClaims(subject="", expires_at=1),
        TokenClaims(subject="bob", expires_at=1, rooms={"standup": "owner"}),
        TokenClaims(subject="bob", expires_at=1, avatar="ftp://pictures"),
        TokenClaims(subject="bob", expires_at=1, groups=("",)),
        TokenClaims(subject="bob", expires_at=1, attributes={"title": 7}),  # type: ignore[dict-item]
    ],
)
def test_claims_the_gateway_would_refuse_are_not_signed(claims: TokenClaims) -> None:
    with pytest.raises(TokenError) as refused:
        sign_claims(KEY, claims)
    assert refused.value.kind == "invalid_claims"


def test_short_secrets_and_empty_key_ids_are_refused() -> None:
    with pytest.raises(TokenError):
        TokenKey(b"short")
    with pytest.raises(TokenError):
        TokenKey(b"z" * 32, "")
    assert "a-test-secret" not in repr(KEY), "the secret stays out of descriptions"
