"""Where the model server is and what may be said about it: local or remote, the key, redaction.

A local server (this machine or a private network) needs no real key, so Kith sends a placeholder; a
remote one without a key is a settings error before any request. The endpoint is shown without user,
password, query or fragment, and ``Redactor`` takes secrets out of anything shown, logged or recorded.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from game.base_url import shown_url
from game.config import LLMSettings
from game.errors import ConfigError

OPENAI_URL = "https://api.openai.com/v1"
LOCAL_KEY = "sk-local"
"""Sent to local servers when no key is set: they ignore it, but the client insists on one."""
_LOCAL_NAMES = {"localhost", "host.docker.internal", "host.containers.internal"}


def is_local_url(url: str | None) -> bool:
    """Whether the endpoint is on this machine or a private network, where servers need no real key."""
    if not url:
        return False
    host = (urlsplit(url).hostname or "").lower()
    if host in _LOCAL_NAMES or host.endswith((".local", ".localhost", ".lan", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified


def display_url(url: str | None) -> str:
    """The endpoint as it may be shown: no user, password, query or fragment (they can hold secrets)."""
    try:
        parts = urlsplit(url or OPENAI_URL)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a URL that never passed the settings check: masked by shape, not by its parts
        return shown_url(url or "")
    if ":" in host:
        host = f"[{host}]"
    return shown_url(f"{parts.scheme}://{host}{port}{parts.path.rstrip('/')}")


def short_host(url: str | None) -> str:
    try:
        parts = urlsplit(url or OPENAI_URL)
        return shown_url(f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname))
    except ValueError:
        return shown_url(url or "")


def resolve_api_key(settings: LLMSettings, env: Mapping[str, str]) -> str:
    """The key from the variable ``api_key_env`` names; a placeholder for a local server; else an error."""
    key = env.get(settings.api_key_env, "").strip()
    if key:
        return key
    if is_local_url(settings.base_url):
        return LOCAL_KEY
    where = display_url(settings.base_url)
    raise ConfigError(
        f"No API key for {where}: set the environment variable {settings.api_key_env} "
        "(Kith reads the key from there and never stores it), or point --base-url at a local server."
    )




class Redactor:
    """Removes secrets from text before it is shown, logged or recorded.

    ``clean`` also masks anything shaped like a key or a bearer token, for a server's error words,
    which may quote a key Kith never knew. ``scrub`` masks only the exact known secrets: recordings hold
    the story, where "the standard-bearer" is prose, and a pattern run over a JSON line can break it.
    """

    _PATTERNS = (
        re.compile(r"\bsk-[A-Za-z0-9_\-*.]{3,}"),
        re.compile(r"(?i)\bbearer\s+\S+"),
        re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]+"),
    )

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted({s for s in secrets if s and s != LOCAL_KEY and len(s) >= 4}, key=len, reverse=True)

    @property
    def secrets(self) -> list[str]:
        return list(self._secrets)

    def _exact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def scrub(self, value: Any) -> Any:
        """``value`` (JSON data) with the known secrets masked in every string, keys included."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self._exact(value)
        if isinstance(value, dict):
            return {self.scrub(key): self.scrub(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.scrub(item) for item in value]
        return value

    def clean(self, text: str) -> str:
        text = self._exact(text)
        text = self._PATTERNS[0].sub("sk-***", text)
        text = self._PATTERNS[1].sub("Bearer ***", text)
        return self._PATTERNS[2].sub(r"\1***", text)
