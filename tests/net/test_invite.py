"""The invite token (docs/network.md, "The invite"): round trips, typos found where they
are, cut-off and overlong tokens, newer formats, hostile payloads, candidate checks."""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dbnet.net import invite as invite_module
from dbnet.net.errors import NetError
from dbnet.net.invite import (
    ALPHABET,
    MAX_CANDIDATES,
    SECRET_SIZE,
    Candidate,
    Invite,
    InviteError,
    PathKind,
    looks_like_invite,
)
from dbnet.protocol.identity import fingerprint

ip = ipaddress.ip_address
DOCS = Path(__file__).resolve().parents[2] / "docs" / "network.md"

FINGERPRINT = fingerprint(bytes(32))
SAMPLE = Invite(
    FINGERPRINT,
    bytes(range(SECRET_SIZE)),
    (
        Candidate(PathKind.LAN, ip("192.168.1.23"), 7117),
        Candidate(PathKind.LAN, ip("10.0.0.5"), 7117),
        Candidate(PathKind.IPV6, ip("2001:db8:1234:5678:9abc:def0:1234:5678"), 7117),
        Candidate(PathKind.MAPPING, ip("203.0.113.77"), 41234),
    ),
    ("transit.magic-wormhole.io", 4001),
)
TOKEN = SAMPLE.text()


def error_of(text: str) -> str:
    with pytest.raises(InviteError) as caught:
        Invite.parse(text)
    return str(caught.value)


def replaced(text: str, index: int, char: str) -> str:
    return text[:index] + char + text[index + 1 :]


# --- round trips ----------------------------------------------------------------------------


def test_the_sample_round_trips_and_its_text_is_stable() -> None:
    assert Invite.parse(TOKEN) == SAMPLE
    assert SAMPLE.text() == TOKEN
    assert TOKEN.startswith("DB1")
    assert re.fullmatch(f"[{ALPHABET}]+", TOKEN)


def test_a_typical_invite_is_well_under_200_characters() -> None:
    assert len(TOKEN) == 168


def test_case_dashes_and_surrounding_white_space_do_not_matter() -> None:
    assert Invite.parse(TOKEN.lower()) == SAMPLE
    mixed = "".join(c.lower() if i % 2 else c for i, c in enumerate(TOKEN))
    assert Invite.parse(mixed) == SAMPLE
    dashed = "-".join(TOKEN[i : i + 4] for i in range(0, len(TOKEN), 4))
    assert Invite.parse(f"  {dashed}\n") == SAMPLE


def test_o_i_and_l_read_as_the_digits_they_look_like() -> None:
    assert "0" in TOKEN
    assert "1" in TOKEN
    looks = TOKEN.replace("0", "O").replace("1", "l")
    assert Invite.parse(looks) == SAMPLE
    assert Invite.parse(TOKEN.replace("1", "I")) == SAMPLE


def test_fresh_draws_a_new_secret_and_normalizes_its_arguments() -> None:
    one = Invite.fresh(FINGERPRINT.lower().replace("-", ""), SAMPLE.direct, ("Relay.Example.", 9))
    two = Invite.fresh(FINGERPRINT, [], None)
    assert one.fingerprint == two.fingerprint == FINGERPRINT
    assert one.relay == ("relay.example", 9)
    assert len(one.secret) == SECRET_SIZE
    assert one.secret != two.secret
    assert Invite.parse(two.text()) == two
    assert one.fingerprint_bytes.hex() == "66687aadf862bd776c8f"
    assert "secret" not in repr(one)


def usable(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return invite_module.address_problem(address) is None


V4 = st.ip_addresses(v=4).filter(usable)
V6 = st.ip_addresses(v=6).filter(usable)
PORTS = st.integers(1, 65535) | st.sampled_from([7117, 7118])
CANDIDATES = st.one_of(
    st.builds(Candidate, st.just(PathKind.LAN), V4, PORTS),
    st.builds(Candidate, st.just(PathKind.IPV6), V6, PORTS),
    st.builds(Candidate, st.just(PathKind.MAPPING), V4 | V6, PORTS),
)
LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?", fullmatch=True)
NAMES = st.lists(LABEL, min_size=1, max_size=4).map(".".join)
HOSTS = (
    NAMES.filter(lambda name: len(name) <= 253 and not name.split(".")[-1].isdigit())
    | V4.map(str)
    | V6.map(str)
)
INVITES = st.builds(
    Invite,
    st.binary(min_size=10, max_size=10)
    .map(lambda digest: base64.b32encode(digest).decode())
    .map(lambda text: "-".join(text[i : i + 4] for i in range(0, 16, 4))),
    st.binary(min_size=SECRET_SIZE, max_size=SECRET_SIZE),
    st.lists(CANDIDATES, max_size=MAX_CANDIDATES, unique_by=lambda c: (c.address, c.port)).map(
        tuple
    ),
    st.none() | st.tuples(HOSTS, PORTS),
)


@settings(max_examples=300, deadline=None)
@given(INVITES)
def test_every_invite_round_trips(invite: Invite) -> None:
    text = invite.text()
    assert Invite.parse(text) == invite
    assert Invite.parse(text.lower()) == invite
    assert looks_like_invite(text)


# --- typos --------------------------------------------------------------------------------


@pytest.mark.parametrize("shift", [1, 7, 16, 31])
def test_every_substituted_character_is_named_with_the_right_one(shift: int) -> None:
    for index, char in enumerate(TOKEN):
        wrong = ALPHABET[(ALPHABET.index(char) + shift) % 32]
        message = error_of(replaced(TOKEN, index, wrong))
        assert message == (
            f"the invite has a typo: its character {index + 1} is {wrong!r}, it should be {char!r}"
        )


def test_every_swap_of_adjacent_characters_is_named() -> None:
    for index in range(len(TOKEN) - 1):
        a, b = TOKEN[index], TOKEN[index + 1]
        if a == b:
            continue
        message = error_of(TOKEN[:index] + b + a + TOKEN[index + 2 :])
        assert message == (
            f"the invite has a typo: its characters {index + 1} and {index + 2} are swapped: "
            f"{b + a!r} should be {a + b!r}"
        )


def test_typos_in_two_blocks_are_both_named() -> None:
    text = replaced(replaced(TOKEN, 9, "Z" if TOKEN[9] != "Z" else "Y"), 99, "0")
    message = error_of(text)
    assert message.startswith("the invite has typos: its character 10 is")
    assert "; its character 100 is '0', it should be" in message


def test_two_typos_in_one_block_name_the_block() -> None:
    text = TOKEN
    for index in (40, 45):
        text = replaced(text, index, ALPHABET[(ALPHABET.index(text[index]) + 3) % 32])
    assert error_of(text) == "the invite's characters 32-62 do not check out: a typo there"


def test_positions_count_the_dashes_as_written() -> None:
    dashed = TOKEN[:10] + "-" + TOKEN[10:]
    wrong = ALPHABET[(ALPHABET.index(TOKEN[20]) + 1) % 32]
    assert f"its character 22 is {wrong!r}" in error_of(replaced(dashed, 21, wrong))


def test_a_block_moved_elsewhere_is_caught_by_the_checksum() -> None:
    blocks = [TOKEN[i : i + 31] for i in range(0, len(TOKEN), 31)]
    blocks[1], blocks[2] = blocks[2], blocks[1]
    assert "does not check out as a whole (its checksum)" in error_of("".join(blocks))


@pytest.mark.parametrize(
    ("index", "char", "shown"),
    [(36, "U", "'U'"), (0, "!", "'!'"), (100, "#", "'#'"), (167, "é", "'é'")],
)
def test_a_character_outside_the_alphabet_is_named_with_its_position(
    index: int, char: str, shown: str
) -> None:
    text = replaced(TOKEN, index, char)
    if index == 0:
        assert (
            error_of(text)
            == "this is not a dbnet invite: an invite starts with DB1, this with '!B1'"
        )
        return
    assert error_of(text) == (
        f"the invite's character {index + 1}, {shown}, is not in its alphabet "
        "(0-9 and A-Z but I, L, O, U)"
    )


def test_an_invite_copied_from_wrapped_lines_still_reads() -> None:
    """The full-screen client wraps a long invite over several indented lines: copied
    with its line breaks and indentation (or pasted as several words), it is the same."""
    wrapped = "\n        ".join(TOKEN[i : i + 40] for i in range(0, len(TOKEN), 40))
    assert Invite.parse(wrapped) == Invite.parse(TOKEN)
    assert Invite.parse(" ".join([TOKEN[:50], TOKEN[50:]])) == Invite.parse(TOKEN)


def test_several_foreign_characters_name_the_first_and_count_the_rest() -> None:
    text = replaced(replaced(TOKEN, 50, "?"), 60, "?")
    assert error_of(text).endswith("(and 1 more)")


# --- length ---------------------------------------------------------------------------------


def test_every_cut_short_invite_says_so() -> None:
    for size in range(len(TOKEN)):
        assert "cut short" in error_of(TOKEN[:size]) or size == 0, size


def test_a_cut_short_invite_says_how_much_and_from_where() -> None:
    assert error_of(TOKEN[:-5]) == (
        "the invite is cut short: it has 163 characters where it says it has 168; "
        "5 characters are missing after character 155 (the characters before check out)"
    )
    assert error_of(TOKEN[:20]) == (
        "the invite is cut short: it has 20 characters, an invite has at least 57"
    )
    assert "a character is missing after character 31" in error_of(TOKEN[:40] + TOKEN[41:])
    assert error_of(TOKEN[:40] + "-" + TOKEN[41:]).startswith(
        "the invite is cut short: it has 167 characters (dashes and spaces not counted)"
    )


def test_a_too_long_invite_says_so() -> None:
    assert error_of(TOKEN + "AB") == (
        "the invite is too long: it has 170 characters where it says it has 168; "
        "2 characters too many after character 155 (the characters before check out)"
    )
    assert "a character too many after character 62" in error_of(TOKEN[:70] + "7" + TOKEN[70:])


def test_the_empty_text_and_other_things_are_no_invites() -> None:
    assert error_of("  ") == "the invite is empty"
    assert error_of("example.org:7117").startswith("this is not a dbnet invite")
    assert error_of("DB1") == (
        "the invite is cut short: it has 3 characters, an invite has at least 57"
    )


# --- versions -------------------------------------------------------------------------------


@pytest.mark.parametrize("rest", ["0123456789" * 10, "?!?" * 20, "Z"])
def test_an_unknown_version_is_of_a_newer_dbnet(rest: str) -> None:
    assert error_of("DB2" + rest) == (
        "the invite is of format version 2 (its third character): it was made by a newer "
        "dbnet (this one reads version 1); upgrade dbnet to join with it"
    )


def test_a_mistyped_version_is_a_typo() -> None:
    assert error_of("DB2" + TOKEN[3:]) == (
        "the invite has a typo: its character 3 is '2', it should be '1'"
    )


# --- hostile payloads -------------------------------------------------------------------------

HEAD = bytes(10) + bytes(range(16))
LAN = bytes([0]) + bytes([192, 0, 2, 1]) + (7117).to_bytes(2, "big")


def payload_error(payload: bytes) -> str:
    return error_of(invite_module._token(payload))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (HEAD, "the invite is cut short: it has 56 characters, an invite has at least 57"),
        (HEAD + b"\x40", "the invite's counts byte (byte 26) is 0x40: its bits 6-7 must be 0"),
        (
            HEAD + b"\x09",
            "the invite's counts byte (byte 26) says 9 direct candidates, at most 8 are allowed",
        ),
        (
            HEAD + b"\x01\x03" + bytes(6),
            "the invite's direct candidate 1 has tag 0x03 (byte 27): not a known kind "
            "(bits 0-1: 0 lan, 1 ipv6, 2 mapping; bits 4-7 must be 0)",
        ),
        (
            HEAD + b"\x01\x10" + bytes(6),
            "the invite's direct candidate 1 has tag 0x10 (byte 27): not a known kind "
            "(bits 0-1: 0 lan, 1 ipv6, 2 mapping; bits 4-7 must be 0)",
        ),
        (
            HEAD + b"\x01\x04" + ip("2001:db8::1").packed + b"\x00\x09",
            "the invite's direct candidate 1 (lan 2001:db8::1:9): a lan candidate has an "
            "IPv4 address, not IPv6",
        ),
        (
            HEAD + b"\x01\x01" + bytes([192, 0, 2, 1]) + b"\x00\x09",
            "the invite's direct candidate 1 (ipv6 192.0.2.1:9): an ipv6 candidate has an "
            "IPv6 address, not IPv4",
        ),
        (
            HEAD + b"\x01\x00" + bytes([192, 0, 2, 1]) + b"\x00\x00",
            "the invite's direct candidate 1's port (byte 32) is 0: no port is 0",
        ),
        (
            HEAD + b"\x01\x00" + bytes([224, 0, 0, 1]) + b"\x00\x09",
            "the invite's direct candidate 1 (lan 224.0.0.1:9): a multicast address is no "
            "single machine's",
        ),
        (
            HEAD + b"\x01\x00" + bytes(4) + b"\x00\x09",
            "the invite's direct candidate 1 (lan 0.0.0.0:9): the unspecified address is "
            "no one's address",
        ),
        (
            HEAD + b"\x01\x05" + bytes(16) + b"\x00\x09",
            "the invite's direct candidate 1 (ipv6 :::9): the unspecified address is no one's "
            "address",
        ),
        (
            HEAD + b"\x01\x05" + ip("fe80::1").packed + b"\x00\x09",
            "the invite's direct candidate 1 (ipv6 fe80::1:9): a link-local IPv6 address "
            "needs an interface the invite cannot name",
        ),
        (
            HEAD + b"\x01\x05" + ip("::ffff:192.0.2.1").packed + b"\x00\x09",
            "the invite's direct candidate 1 (ipv6 ::ffff:c000:201:9): an IPv4-mapped "
            "address: give the IPv4 address 192.0.2.1",
        ),
        (
            HEAD + b"\x01\x08" + bytes([192, 0, 2, 1]),
            "the invite's direct candidate 1 (byte 27) takes the previous candidate's port, "
            "but it is the first",
        ),
        (
            HEAD + b"\x02" + LAN + LAN,
            "the invite's direct candidates: candidate 2 (lan 192.0.2.1:7117) repeats "
            "candidate 1's address",
        ),
        (
            HEAD + b"\x02" + LAN + LAN[:1] + bytes([192, 0, 2, 2]) + LAN[5:],
            "the invite's payload is not in its one canonical form (a candidate repeats the "
            "previous port instead of taking it)",
        ),
        (
            HEAD + b"\x01" + LAN[:4],
            "the invite's payload ends inside direct candidate 1's address (byte 28, 4 bytes "
            "wanted, 3 left)",
        ),
        (HEAD + b"\x10\x00", "the invite's relay host length (byte 27) is 0: it must be 1-253"),
        (
            HEAD + b"\x10\xfe" + b"a" * 254 + b"\x00\x09",
            "the invite's relay host length (byte 27) is 254: it must be 1-253",
        ),
        (
            HEAD + b"\x10\x03r\xe9x\x00\x09",
            "the invite's relay host (byte 28) is not ASCII: b'r\\xe9x'",
        ),
        (
            HEAD + b"\x10\x03R.x\x00\x09",
            "the invite's relay host 'R.x' (byte 28): write the host name in lower case",
        ),
        (
            HEAD + b"\x10\x04a_.x\x00\x09",
            "the invite's relay host 'a_.x' (byte 28): 'a_' is not a label of a host name "
            "(1 to 63 of a-z 0-9 -, not starting or ending with -)",
        ),
        (
            HEAD + b"\x10\x03-ab\x00\x09",
            "the invite's relay host '-ab' (byte 28): '-ab' is not a label of a host name "
            "(1 to 63 of a-z 0-9 -, not starting or ending with -)",
        ),
        (
            HEAD + b"\x10\x051.2.3\x00\x09",
            "the invite's relay host '1.2.3' (byte 28): it is neither an IP address nor a "
            "host name (its last label is a number)",
        ),
        (
            HEAD + b"\x10\x04::01\x00\x09",
            "the invite's relay host '::01' (byte 28): write the IP address as '::1'",
        ),
        (
            HEAD + b"\x10\x09224.0.0.1\x00\x09",
            "the invite's relay host '224.0.0.1' (byte 28): a multicast address is no "
            "single machine's",
        ),
        (HEAD + b"\x10\x01a\x00\x00", "the invite's relay's port (byte 29) is 0: no port is 0"),
        (
            HEAD + b"\x10\x01a\x00",
            "the invite's payload ends inside relay's port (byte 29, 2 bytes wanted, 1 left)",
        ),
        (
            HEAD + b"\x00\x00\x00",
            "the invite's payload has 2 bytes after its last field (from byte 27)",
        ),
    ],
)
def test_a_hostile_payload_behind_valid_checks_is_refused_precisely(
    payload: bytes, message: str
) -> None:
    assert payload_error(payload) == message


def test_the_smallest_payload_is_an_invite() -> None:
    invite = Invite.parse(invite_module._token(HEAD + b"\x00"))
    assert invite == Invite("AAAA-AAAA-AAAA-AAAA", HEAD[10:], (), None)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=120))
def test_any_payload_is_an_invite_or_an_invite_error(payload: bytes) -> None:
    try:
        invite = Invite.parse(invite_module._token(HEAD + payload))
    except InviteError:
        return
    assert invite.payload() == HEAD + payload


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200) | st.text(alphabet=ALPHABET + "-oil", max_size=200))
def test_any_text_is_an_invite_or_an_invite_error(text: str) -> None:
    with contextlib.suppress(InviteError):
        Invite.parse("DB1" + text)
    with contextlib.suppress(InviteError):
        Invite.parse(text)


# --- building invites ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "address", "port", "message"),
    [
        (
            PathKind.LAN,
            "192.0.2.1",
            0,
            "direct candidate lan 192.0.2.1:0: the port must be 1-65535, not 0",
        ),
        (PathKind.LAN, "192.0.2.1", 65536, "the port must be 1-65535, not 65536"),
        (PathKind.LAN, "192.0.2.1", True, "the port must be 1-65535, not True"),
        (PathKind.LAN, "2001:db8::1", 9, "a lan candidate has an IPv4 address, not IPv6"),
        (PathKind.IPV6, "192.0.2.1", 9, "an ipv6 candidate has an IPv6 address, not IPv4"),
        (PathKind.MAPPING, "239.1.2.3", 9, "a multicast address is no single machine's"),
        (PathKind.MAPPING, "ff02::1", 9, "a multicast address is no single machine's"),
        (PathKind.MAPPING, "::", 9, "the unspecified address is no one's address"),
        (PathKind.LAN, "255.255.255.255", 9, "the broadcast address is no single machine's"),
        (PathKind.LAN, "0.1.2.3", 9, "an address of 0.0.0.0/8 ('this network') cannot be"),
    ],
)
def test_a_nonsense_candidate_is_refused(
    kind: PathKind, address: str, port: int, message: str
) -> None:
    with pytest.raises(InviteError, match=re.escape(message)):
        Candidate(kind, ip(address), port)


def test_candidates_of_either_family_where_the_kind_allows() -> None:
    assert str(Candidate(PathKind.MAPPING, ip("2001:db8::9"), 9)) == "mapping [2001:db8::9]:9"
    assert str(Candidate(PathKind.LAN, ip("127.0.0.1"), 7117)) == "lan 127.0.0.1:7117"
    with pytest.raises(InviteError, match="kind must be a PathKind"):
        Candidate("lan", ip("192.0.2.1"), 9)  # type: ignore[arg-type]
    with pytest.raises(InviteError, match="address must be an IP address"):
        Candidate(PathKind.LAN, "192.0.2.1", 9)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"fingerprint": "kq3x-7zbd-m2la-qx4p"}, "written like 'KQ3X-7ZBD-M2LA-QX4P'"),
        ({"secret": bytes(15)}, "an invite's secret is 16 bytes"),
        ({"direct": [SAMPLE.direct[0]]}, "are a tuple of Candidate"),
        ({"direct": SAMPLE.direct * 3}, "an invite's direct candidates: at most 8, not 12"),
        ({"direct": SAMPLE.direct[:1] * 2}, "candidate 2 (lan 192.168.1.23:7117) repeats"),
        ({"relay": ("Relay.example", 9)}, "write the host name in lower case"),
        ({"relay": ("relay.example", 0)}, "the port must be 1-65535, not 0"),
        ({"relay": ("x" * 254, 9)}, "the host has 1 to 253 characters, not 254"),
        ({"relay": ("", 9)}, "the host has 1 to 253 characters, not 0"),
        ({"relay": ("a..b", 9)}, "'' is not a label of a host name"),
        ({"relay": ("relay.example",)}, "an invite's relay is (host, port)"),
        ({"relay": (7, 9)}, "the host must be a string, not 7"),
    ],
)
def test_an_invite_that_cannot_be_written_is_refused(
    changes: dict[str, object], message: str
) -> None:
    fields: dict[str, object] = {
        "fingerprint": SAMPLE.fingerprint,
        "secret": SAMPLE.secret,
        "direct": SAMPLE.direct,
        "relay": SAMPLE.relay,
    } | changes
    with pytest.raises(InviteError, match=re.escape(message)):
        Invite(**fields)  # type: ignore[arg-type]


def test_the_longest_invite_fits_its_length_field() -> None:
    direct = tuple(Candidate(PathKind.IPV6, ip(f"2001:db8::{n + 1}"), 1000 + n) for n in range(8))
    longest = Invite(FINGERPRINT, bytes(16), direct, (".".join(["a" * 63] * 3 + ["b" * 61]), 9))
    assert Invite.parse(longest.text()) == longest
    assert len(longest.text()) < 1024


def test_invite_errors_are_network_errors() -> None:
    assert issubclass(InviteError, NetError)


# --- telling an invite from HOST:PORT --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (TOKEN, True),
        (TOKEN.lower(), True),
        (f" {TOKEN[:20]}-{TOKEN[20:]}\n", True),
        ("DB1", True),
        ("host:7117", False),
        ("[::1]:7117", False),
        ("example.org:7117", False),
        ("192.0.2.7:7117", False),
        ("db1.example.org:7117", False),
        ("dbhost:7117", False),
        ("[2001:db8::7]:7117", False),
    ],
)
def test_looks_like_invite(text: str, expected: bool) -> None:
    assert looks_like_invite(text) is expected


# --- the documentation ---------------------------------------------------------------------


def test_the_worked_example_of_the_docs_is_the_codes() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index(". The invite\n") :]
    token = re.search(r"^    (DB1[0-9A-Z]+)$", section, re.MULTILINE)
    payload = re.search(r"^    ([0-9a-f ]+)$", section, re.MULTILINE)
    assert token is not None
    assert payload is not None
    assert token.group(1) == TOKEN
    assert bytes.fromhex(payload.group(1).replace(" ", "")) == SAMPLE.payload()
    quoted = re.search(r"Typing `X` for its\s+character 37 \(`(.)`\) gives `([^`]*)`", section)
    assert quoted is not None
    assert TOKEN[36] == quoted.group(1)
    assert error_of(replaced(TOKEN, 36, "X")) == " ".join(quoted.group(2).split())


@pytest.mark.parametrize(
    "text", ["DB1ABC", "db1abc", " DB1-ABC ", "db.example:7117", "[::1]:7117", "dbhost:7117", "x"]
)
def test_the_command_lines_light_check_agrees_with_the_invites(text: str) -> None:
    """``dbnet join`` tells an invite from HOST:PORT before importing the network."""
    from dbnet.commands.argument_types import _looks_like_invite

    assert _looks_like_invite(text) == looks_like_invite(text)


def test_a_spectator_invite_is_marked_and_reads_back() -> None:
    """Bit 5 of the counts byte marks a spectator invite (dbnet watch INVITE)."""
    lan = Candidate(PathKind.LAN, ipaddress.ip_address("127.0.0.1"), 7117)
    watch = Invite("MZUH-VLPY-MK6X-O3EP", bytes(range(16)), (lan,), None, watch=True)
    assert watch.payload()[26] == 0x21
    assert Invite.parse(watch.text()) == watch
    seat = Invite("MZUH-VLPY-MK6X-O3EP", bytes(range(16)), (lan,), None)
    assert not Invite.parse(seat.text()).watch
