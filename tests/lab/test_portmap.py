"""``dbnet.net.portmap`` against Debian's miniupnpd in the lab: a program on a LAN host
maps its listening port, a host on the internet connects through the mapping, and the
mapping is gone once the program is interrupted (Ctrl-C)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dbnet.net.hosting import with_port

from .lab import AGENT, Host, Lab, Router
from .players import assert_complete, path_of, play

pytestmark = pytest.mark.lab

ROOT = str(Path(__file__).resolve().parents[2])


def _start(host: Host, *extra: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return host.popen(
        [sys.executable, str(AGENT), "portmap", "7117", *extra],
        env={"PYTHONPATH": ROOT, "DBNET_PORT_MAPPING": "on", **(env or {})},
    )


def _first_line(process: subprocess.Popen[str]) -> list[str]:
    """The mapping line, after every ``say:`` line (returned with it)."""
    assert process.stdout is not None
    lines = []
    while True:
        line = process.stdout.readline()
        assert line, f"the program ended: {process.communicate(timeout=5)}"
        lines.append(line.strip())
        if line.startswith("mapping"):
            return lines


def _interrupt(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=10)
    assert "interrupted" in out, err
    return out


def _connects(client: Host, address: str, port: int) -> bool:
    done = client.run_agent("connect", address, str(port), "1")
    return done.returncode == 0 and done.stdout.strip() == "hello"


def _mapped_ports(router: Router) -> str:
    return router.ruleset().split("chain input")[0]


@pytest.mark.parametrize(("extra", "method"), [((), "PCP"), (("--upnp-only",), "UPnP IGD")])
def test_a_mapping_reaches_the_listener_and_is_gone_after_ctrl_c(
    lab: Lab, extra: tuple[str, ...], method: str
) -> None:
    router = lab.router("upnp")
    host, outsider = router.host(), lab.public_host()
    program = _start(host, *extra)
    lines = _first_line(program)
    assert lines == [f"mapping {method} {router.wan_address}:7117 3600"]
    assert _connects(outsider, router.wan_address, 7117)
    assert "dport 7117" in _mapped_ports(router)
    _interrupt(program)
    assert "dport 7117" not in _mapped_ports(router)
    assert not _connects(outsider, router.wan_address, 7117)


def test_behind_carrier_grade_nat_there_is_no_mapping_and_one_line_says_why(lab: Lab) -> None:
    """miniupnpd's STUN test finds the carrier's filtering NAT and refuses every mapping
    (PCP: NO_RESOURCES, UPnP IGD: Action Failed): the program gets None and one line."""
    router = lab.router("cgnat")
    program = _start(router.host())
    lines = _first_line(program)
    assert lines[-1] == "mapping none"
    [said] = lines[:-1]
    assert said.startswith("say: router port mapping: none (")
    assert "NO_RESOURCES" in said
    assert "UPnP IGD" in said
    _interrupt(program)


def test_with_port_mapping_off_nothing_is_sent(lab: Lab) -> None:
    router = lab.router("upnp")
    host = router.host()
    host.nft(
        "table inet count {\n"
        "  chain output { type filter hook output priority 0;\n"
        '    oifname != "lo" meta l4proto { tcp, udp } counter; }\n'
        "}\n"
    )
    program = _start(host, env={"DBNET_PORT_MAPPING": "off"})
    assert _first_line(program) == ["say: router port mapping: off", "mapping none"]
    _interrupt(program)
    counted = host.run(["nft", "list", "table", "inet", "count"]).stdout
    assert "packets 0 bytes 0" in counted
    assert "NAT-PMP request" not in lab.miniupnpd_log(router)


@pytest.mark.parametrize(
    ("external", "extra", "method"),
    [
        ("255.255.255.255", (), "PCP"),
        ("fe80::1", (), "PCP"),
        ("255.255.255.255", ("--natpmp",), "NAT-PMP"),
        ("224.0.0.1", ("--natpmp",), "NAT-PMP"),  # (PCP's parser sets such a reply aside)
    ],
    ids=["pcp-broadcast", "pcp-link-local", "natpmp-broadcast", "natpmp-multicast"],
)
def test_a_hostile_router_costs_one_line_never_the_game(
    lab: Lab, tmp_path: Path, external: str, extra: tuple[str, ...], method: str
) -> None:
    """A router that grants the mapping under an address no peer can connect to: the host
    says so in one line, deletes the mapping, and goes on hosting; the LAN game is played."""
    router = lab.router("cone")
    gateway = router.agent("gateway", router.lan_address, external, *extra)
    game = play(router.host(), router.host(), tmp_path, None)
    assert_complete(game)
    assert path_of(game.joiner) == "direct (LAN)"
    said = [line for line in game.host.lines if "port mapping" in line or "forwards" in line]
    assert len(said) == 1, game.host.output()
    assert said[0].startswith(
        f"router port mapping: none ({method} granted {with_port(external, 7117)}, which no "
        "peer can reach: "
    ), said
    assert gateway.poll() is None  # the hostile router was asked, and is still there
