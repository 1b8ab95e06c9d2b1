"""API keys the player typed into Settings and asked Kith to remember.

Only on request, in one file readable by its owner alone (``$XDG_CONFIG_HOME/kith/keys.json``, mode
0600), keyed by the environment variable the key stands in for. A key set in the environment wins.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from game.errors import ConfigError


def default_key_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kith" / "keys.json"


class KeyStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_key_file()

    def _read(self) -> dict[str, str]:
        """The remembered keys; none when no key was ever remembered. A file that is there but cannot be
        read is a ConfigError rather than nothing, so the player learns why a key is not used and the
        file is not overwritten (which would lose what it held)."""
        import json  # not before the first frame: a key is read as the game opens

        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise ConfigError(f"remembered keys cannot be read from {self.path}: {error.strerror}") from error
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"remembered keys in {self.path} are not valid JSON ({error}); "
                              "fix or delete the file") from error
        if not isinstance(data, dict):
            raise ConfigError(f"remembered keys in {self.path} are not a JSON object; fix or delete the file")
        return {str(k): str(v) for k, v in data.items()}

    def load(self, variable: str) -> str | None:
        return self._read().get(variable)

    def save(self, variable: str, key: str) -> None:
        import json

        data = self._read()
        data[variable] = key
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_name(f".{self.path.name}.tmp")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            temporary.replace(self.path)
        except OSError as error:
            raise ConfigError(f"could not remember the key in {self.path}: {error.strerror}") from error


def environment_with_key(base: Mapping[str, str], variable: str, key: str | None) -> dict[str, str]:
    """The environment a narrator reads its key from: ``base``, plus ``key`` unless ``base`` has one."""
    env = dict(base)
    if key and not env.get(variable):
        env[variable] = key
    return env
