"""Where settings come from, read but not yet validated: Kith's folders, ``kith.toml``, the environment
and the command line's flags, merged in the one documented order (flags > environment > file).

Kept apart from ``game.config`` (the pydantic models that validate it all) so that what needs only
folders (``kith graph dump``, the first frame of ``kith play``) starts without loading pydantic, which
costs more than the whole of such a command (issue 15). ``SettingsSource.folders`` says when that is
safe: the settings name nothing but folders and a world, which need no checking beyond their type.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from game.errors import ConfigError
from game.reading import TooLarge, read_file_at_most

CONFIG_LIMIT = 1 << 20
"""The most a settings file may hold (a kith.toml is a few hundred bytes): ``--config /dev/zero`` stops here."""

PACKAGE_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = PACKAGE_DIR.parent
SHIPPED_CONTENT = PACKAGE_DIR / "_content"
"""Where an installed copy keeps its worlds: the build copies the checkout's ``content/`` here (setup.py),
so ``content/`` stays the one source at the top of the repository."""


def from_checkout() -> bool:
    """Whether Kith runs from a source checkout (``make play``, an editable install) rather than a wheel.

    An installed ``game`` package sits in site-packages, beside no ``pyproject.toml`` and no ``content/``.
    """
    return (PROJECT_ROOT / "pyproject.toml").is_file() and (PROJECT_ROOT / "content").is_dir()


def _xdg_dir(variable: str, fallback: str, env: Mapping[str, str] | None) -> Path:
    """``$VARIABLE/kith``, or ``~/FALLBACK/kith``: the XDG base directory rules, which also say that a
    relative value is invalid and must be ignored (so a stray ``XDG_DATA_HOME=.`` cannot scatter saves)."""
    env = os.environ if env is None else env
    value = env.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value) / "kith"
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / fallback / "kith"


def user_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/kith`` (default ``~/.local/share/kith``): saves and the player's own worlds."""
    return _xdg_dir("XDG_DATA_HOME", ".local/share", env)


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/kith`` (default ``~/.config/kith``): ``kith.toml`` and ``keys.json``."""
    return _xdg_dir("XDG_CONFIG_HOME", ".config", env)


def default_content_dir() -> Path:
    """The shipped worlds: the checkout's ``content/`` when run from one, else the installed copy."""
    return PROJECT_ROOT / "content" if from_checkout() else SHIPPED_CONTENT


def default_worlds_dir() -> Path:
    """The player's own worlds, beside the shipped ones: ``~/.local/share/kith/worlds``."""
    return user_data_dir() / "worlds"


def default_saves_dir() -> Path:
    # A source checkout keeps saves beside the code (``make play``); an installed copy keeps them in the
    # user's data folder, never in whatever folder the player happens to stand in.
    if from_checkout():
        return PROJECT_ROOT / "saves"
    return user_data_dir() / "saves"


def find_config_file(explicit: Path | None, env: Mapping[str, str], cwd: Path | None) -> Path | None:
    """``--config`` if given, else ``KITH_CONFIG``, else ``kith.toml`` in ``cwd``, else the checkout's, else
    the user's (``$XDG_CONFIG_HOME/kith/kith.toml``).

    The default files are looked for only when a working folder is given (the CLI gives its own): a
    caller that passes none, a test for one, gets settings that no file on the machine can change. The
    user's file is found through ``env`` alone (``XDG_CONFIG_HOME`` or ``HOME``), for the same reason.
    """
    if explicit is not None:
        return explicit
    if env.get("KITH_CONFIG"):
        return Path(env["KITH_CONFIG"])
    if cwd is None:
        return None
    candidates = [cwd / "kith.toml", PROJECT_ROOT / "kith.toml"]
    if env.get("XDG_CONFIG_HOME") or env.get("HOME"):
        candidates.append(user_config_dir(env) / "kith.toml")
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


ENVIRONMENT: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("OPENAI_BASE_URL", "OPENAI_API_BASE"), ("llm", "base_url")),
    (("KITH_MODEL",), ("llm", "model")),
    (("KITH_SAVES",), ("saves_dir",)),
    (("KITH_CONTENT",), ("content_dir",)),
    (("KITH_WORLDS",), ("worlds_dir",)),
    (("KITH_WORLD",), ("world",)),
    (("KITH_NARRATOR",), ("narrator",)),
)
"""The variables that set a setting, first one set wins, and the setting each sets."""


def environment_overrides(env: Mapping[str, str]) -> tuple[dict[str, Any], dict[tuple[str, ...], str]]:
    """Settings the environment sets, as a nested dict, and which variable set each (for error messages)."""
    out: dict[str, Any] = {}
    sources: dict[tuple[str, ...], str] = {}
    for names, path in ENVIRONMENT:
        name = next((name for name in names if env.get(name)), None)
        if name is None:
            continue
        table = out
        for key in path[:-1]:
            table = table.setdefault(key, {})
        table[path[-1]] = env[name]
        sources[path] = f"environment variable {name}"
    return out, sources


def _deep_merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        if value is None:
            continue
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _read_file(path: Path) -> dict[str, Any]:
    import tomllib  # only when there is a file to read: most runs have none

    try:
        return tomllib.loads(read_file_at_most(path, CONFIG_LIMIT).decode("utf-8"))
    except TooLarge as error:
        raise ConfigError(f"{path}: is {error.words}, more than a settings file holds") from None
    except FileNotFoundError as error:
        raise ConfigError(f"{path}: no such settings file") from error
    except OSError as error:
        raise ConfigError(f"{path}: cannot be read ({error.strerror or error})") from error
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from error
    except RecursionError as error:
        raise ConfigError(f"{path}: not valid TOML (nested too deeply)") from error



FOLDER_SETTINGS = ("saves_dir", "content_dir", "worlds_dir")


class Folders(NamedTuple):
    """The settings a read-only command needs, when nothing else was set: every other setting has its
    default, so ``game.config.Settings()`` with these folders is exactly what validation would give.

    This module and its two records avoid ``dataclasses``: importing it costs ``kith graph dump`` a
    quarter of its floor (issue 15)."""

    saves_dir: Path
    content_dir: Path
    worlds_dir: Path
    world: str | None = None


class SettingsSource:
    """The merged, unvalidated settings, and where each came from (for ``game.config``'s messages)."""

    __slots__ = ("data", "environment_sources", "flags", "from_file", "path")

    def __init__(self, data: dict[str, Any], flags: Mapping[str, Any] | None = None,
                 environment_sources: Mapping[tuple[str, ...], str] | None = None,
                 from_file: Mapping[str, Any] | None = None, path: Path | None = None) -> None:
        self.data = data
        self.flags: Mapping[str, Any] = {} if flags is None else flags
        self.environment_sources: Mapping[tuple[str, ...], str] = {} if environment_sources is None else environment_sources
        self.from_file: Mapping[str, Any] = {} if from_file is None else from_file
        self.path = path

    def __repr__(self) -> str:
        return f"SettingsSource(data={self.data!r}, path={self.path!r})"

    def folders(self) -> Folders | None:
        """The folders, if the settings set nothing but folders (as text or paths) and a world's name;
        otherwise None, and the caller validates everything (``game.config.validate_settings``) first."""
        if not set(self.data) <= {*FOLDER_SETTINGS, "world"}:
            return None
        if not all(isinstance(self.data.get(key, ""), str | Path) for key in FOLDER_SETTINGS):
            return None
        world = self.data.get("world")
        if world is not None and not isinstance(world, str):
            return None
        return self.folder_paths()._replace(world=world)

    def folder_paths(self) -> Folders:
        """The folders these settings name, whatever else they set (for ``--help``, which validates
        nothing); a folder set to something other than text is shown as its default."""
        def folder(key: str, default: Callable[[], Path]) -> Path:
            value = self.data.get(key)
            return Path(value) if isinstance(value, str | Path) else default()

        return Folders(saves_dir=folder("saves_dir", default_saves_dir),
                       content_dir=folder("content_dir", default_content_dir),
                       worlds_dir=folder("worlds_dir", default_worlds_dir))


def gather_settings(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
    cwd: Path | None = None,
) -> SettingsSource:
    """Read and merge flags > environment > file, validating nothing. ``flags`` is nested like the file.

    Only what is given is read: ``env`` (none means an empty environment) and ``cwd``, the folder whose
    ``kith.toml`` applies (none means no default settings file). The CLI passes ``os.environ`` and its
    working folder; everything else passes what it means. A settings file that cannot be read or is not
    TOML is refused here, as before any command runs.
    """
    env = {} if env is None else env
    path = find_config_file(config_file, env, cwd)
    from_file = _read_file(path) if path is not None else {}
    from_environment, environment_sources = environment_overrides(env)
    data = _deep_merge(_deep_merge(from_file, from_environment), flags or {})
    return SettingsSource(data, dict(flags or {}), environment_sources, from_file, path)
