"""A server address setting: a flag, else an environment variable, else ``config.toml``,
else a default; shared by the relay (``--relay``, ``DBNET_RELAY``, ``relay = ...``) and
the STUN server (``--stun``, ``DBNET_STUN``, ``stun = ...``).

``parse_address`` reads ``HOST:PORT``, ``[IPv6]:PORT`` or ``off`` (None);
``address_setting`` picks the first setting that is given and names the flag, variable
or file and line of a bad value in the error.
"""

from __future__ import annotations

import ipaddress
import os
import re
from pathlib import Path
from typing import Final

from dbnet.catalog.files import parse_toml
from dbnet.errors import DataError
from dbnet.net.errors import NetError
from dbnet.net.hosting import with_port
from dbnet.protocol.identity import config_dir
from dbnet.text import os_error_words

__all__ = [
    "CONFIG_FILE",
    "Address",
    "AddressSettingError",
    "address_setting",
    "format_address",
    "parse_address",
]

Address = tuple[str, int]

CONFIG_FILE: Final = "config.toml"
_EXPECTED: Final = "expected HOST:PORT, [IPv6]:PORT or off"
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_TABLE_HEADER = re.compile(r"\s*\[")


class AddressSettingError(NetError, ValueError):
    """A setting that is not ``HOST:PORT``, ``[IPv6]:PORT`` or ``off``, or a config file
    that cannot be read. ``where`` names the flag, variable or file (and line)."""

    def __init__(self, where: str, problem: str) -> None:
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


def format_address(address: Address) -> str:
    """``HOST:PORT``, or ``[IPv6]:PORT``."""
    return with_port(*address)


def parse_address(
    text: str,
    *,
    what: str,
    prefix: str = "",
    error: type[AddressSettingError] = AddressSettingError,
) -> Address | None:
    """The address in ``text``: ``HOST:PORT`` (a host name or IPv4 address) or
    ``[IPv6]:PORT``, optionally after ``prefix`` (as in ``tcp:``); ``off`` is None.
    Anything else is an ``error`` saying what is wrong with ``text`` as ``what``."""

    def bad(problem: str) -> AddressSettingError:
        return error("", f"{text!r} is not {what}: {problem} ({_EXPECTED})")

    value = text.strip()
    if value.lower() == "off":
        return None
    rest = value[len(prefix) :] if prefix and value.lower().startswith(prefix) else value
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0 or not rest[close + 1 :].startswith(":"):
            raise bad("an IPv6 address in brackets must be followed by :PORT")
        host, port_text = rest[1:close], rest[close + 2 :]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise bad(f"{host!r} is not an IPv6 address") from None
    else:
        host, colon, port_text = rest.rpartition(":")
        if not colon:
            raise bad("no port")
        if ":" in host:
            raise bad("an IPv6 address needs brackets, as in [2001:db8::1]:4001")
        if not _is_host_name(host):
            raise bad(f"{host!r} is not a host name or IPv4 address")
    if not (port_text.isascii() and port_text.isdigit()) or not 1 <= int(port_text) <= 65535:
        raise bad(f"the port {port_text!r} is not a number from 1 to 65535")
    return host, int(port_text)


def _is_host_name(host: str) -> bool:
    name = host[:-1] if host.endswith(".") else host
    if not name or len(name) > 253:
        return False
    return all(_HOST_LABEL.fullmatch(label) for label in name.split("."))


def address_setting(
    flag: str | None,
    *,
    option: str,
    env: str,
    key: str,
    default: Address,
    what: str,
    prefix: str = "",
    error: type[AddressSettingError] = AddressSettingError,
) -> Address | None:
    """The address to use (None: none). The first that is set wins: ``flag`` (the
    command line's ``option``), the environment variable ``env`` (empty counts as not
    set), ``KEY = "HOST:PORT"`` at the top of ``config.toml`` in dbnet's configuration
    directory, and last ``default``. ``error`` names the flag, variable or file and line
    whose value is bad."""

    def parsed(text: str, where: str) -> Address | None:
        try:
            return parse_address(text, what=what, prefix=prefix, error=error)
        except AddressSettingError as exc:
            raise error(where, exc.problem) from None

    if flag is not None:
        return parsed(flag, option)
    value = os.environ.get(env)
    if value:
        return parsed(value, env)
    path = config_dir() / CONFIG_FILE
    found = _config_value(path, key, error)
    if found is not None:
        text, line = found
        return parsed(text, f"{path} line {line}")
    return default


def _config_value(path: Path, key: str, error: type[AddressSettingError]) -> tuple[str, int] | None:
    """The ``key`` value of the config file and its line, None if the file or the key
    is absent."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise error(str(path), f"cannot be read: {os_error_words(exc)}") from exc
    try:
        text = data.decode("utf-8")
        document = parse_toml(text, str(path))
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(f"{path} line {line}", "not UTF-8 text") from None
    except DataError as exc:
        raise error(exc.where, exc.problem) from None
    if key not in document:
        return None
    line = _key_line(text, key)
    value = document[key]
    if not isinstance(value, str):
        raise error(
            f"{path} line {line}",
            f'{key} must be a string, as in {key} = "HOST:PORT" or {key} = "off", not {value!r}',
        )
    return value, line


def _key_line(text: str, key: str) -> int:
    """The line of the top-level ``key`` (1 if it cannot be told)."""
    pattern = re.compile(rf"""\s*(?:{key}|"{key}"|'{key}')\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        if _TABLE_HEADER.match(line):
            break
        if pattern.match(line):
            return number
    return 1
