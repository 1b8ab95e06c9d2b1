"""The one check of a model endpoint's base URL, and the one way a URL that failed it is shown.

Every source of a base URL (``--base-url``, ``OPENAI_BASE_URL``, ``kith.toml``, the settings screen)
goes through ``LLMSettings``, whose validator is ``check_base_url``: a URL the HTTP client would refuse
(a control character, a bad host or port) is a settings error naming where it was set, not an
``InvalidURL`` traceback from inside the client when the first request is built.

A URL that failed the check is malformed, so its parts cannot be trusted to be where a parser puts them
(``http:/alice:pw@host`` has no authority at all; in ``http://alice:pw#@host`` the password looks like a
port): ``shown_url`` masks by shape instead, everything before the last ``@`` and every query, so no
spelling of user information can bring a password into a message. The messages ``check_base_url``
raises never quote the URL or a parser's words about it (``Port could not be cast ... 'pw'``).
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from urllib.parse import urlsplit

_SCHEME = re.compile(r"^\s*(?:(?i:https?|ftp|wss?):)?[/\\]*")
"""What is kept before masked user information: a scheme people mean (any word before a colon could be a
user name, or a password typed in front of it) and its slashes."""
_IPV4_SHAPE = re.compile(r"^[0-9.]+$")
_EXAMPLE = "e.g. http://localhost:11434/v1"
MAX_URL_CHARS = 2048
"""Longer than any endpoint's address; the client's own limit is 64 KB, past which it raises mid-request."""


def check_base_url(value: str) -> str:
    """``value`` (already stripped) when the HTTP client can use it; else ``ValueError`` saying why in
    words that quote nothing of the URL."""
    if len(value) > MAX_URL_CHARS:
        raise ValueError(f"is too long ({len(value)} characters; at most {MAX_URL_CHARS})")
    for position, char in enumerate(value):
        if not char.isprintable() or char.isspace():
            raise ValueError(f"holds {_char_name(char)} at position {position}: a URL is one line of "
                             f"printable text with no spaces ({_EXAMPLE})")
    if not value.lower().startswith(("http://", "https://")):
        raise ValueError(f"must start with http:// or https:// ({_EXAMPLE})")
    try:
        parts = urlsplit(value)
        hostname = parts.hostname
    except ValueError:
        raise ValueError(f"has brackets that do not hold an IPv6 address ({_EXAMPLE})") from None
    if not hostname:
        raise ValueError(f"names no host ({_EXAMPLE})")
    if parts.fragment or value.endswith("#"):
        raise ValueError(f"has a # part, which is never sent to a server ({_EXAMPLE})")
    if "@" in value[value.index(parts.netloc) + len(parts.netloc):]:
        # An @ past the host is a user part in the wrong place, and shown back it would show the password.
        raise ValueError("has an @ after the host: a user name and password go before it "
                         "(http://user:password@host/v1)")
    _check_port(parts.netloc)
    _check_host(hostname)
    return value


def _char_name(char: str) -> str:
    if char == " ":
        return "a space"
    kind = "control character" if unicodedata.category(char).startswith("C") else "space"
    return f"a {kind} (U+{ord(char):04X})"


def _check_port(netloc: str) -> None:
    """The port (after the host, past any ``]``) is digits in range; urlsplit's own error quotes it."""
    host_and_port = netloc.rpartition("@")[2]
    after_host = host_and_port.rpartition("]")[2] if host_and_port.startswith("[") else host_and_port
    if ":" not in after_host:
        return
    port = after_host.partition(":")[2]  # all of it: in ``http:http:`` the client reads the port as ``http:``
    if port == "":
        return
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise ValueError(f"has a port that is not a number from 0 to 65535 ({_EXAMPLE})")


def _check_host(hostname: str) -> None:
    """The host as the client parses it: a dotted-number host must be an IPv4 address, and a host beyond
    ASCII must encode as IDNA (checked by the client's own parser, which only such hosts load)."""
    if _IPV4_SHAPE.match(hostname):
        try:
            ipaddress.IPv4Address(hostname)
        except ValueError:
            raise ValueError(f"names a host that is not an IPv4 address ({_EXAMPLE})") from None
    if hostname.isascii():
        return
    import httpx2  # only a non-ASCII host needs the client's IDNA rules; everything else is checked above

    try:
        httpx2.URL(f"http://{hostname}/")
    except httpx2.InvalidURL:
        raise ValueError(f"names a host that is not a valid international domain name ({_EXAMPLE})") from None


def without_userinfo(text: str) -> str:
    """``text`` with everything between its scheme (if any) and its last ``@`` masked: ``http://user:pw@h``
    -> ``http://***@h``, and the same for every malformed spelling, since the last ``@`` is the one a
    password cannot follow."""
    at = text.rfind("@")
    if at < 0:
        return text
    start = _SCHEME.match(text)
    begin = start.end() if start else 0
    if begin > at:
        begin = 0
    return f"{text[:begin]}***{text[at:]}"


def shown_url(text: str) -> str:
    """A base URL as an error message may quote it: the scheme, host, port and path a typo is usually in,
    with the user information (``without_userinfo``) and every query or fragment masked, and control
    characters shown as escapes rather than sent to the terminal."""
    text = without_userinfo(text)
    for mark in ("?", "#"):
        cut = text.find(mark)
        if cut >= 0:
            text = f"{text[:cut + 1]}***"
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)  # \n, \x07, \u200b
