"""The files the main menu and the pre-game screen offer: warbands and replays.

Your warbands live in ``<dbnet home>/warbands/`` (``$DBNET_HOME``, else
``$XDG_CONFIG_HOME/dbnet``, else ``~/.config/dbnet``: the folder of your identity key and
replays); the builder saves new ones there. The shipped warbands (dbnet's data files)
and, in a source checkout, ``examples/warbands/`` are offered read-only: editing one
edits a copy saved into your folder. Replays are ``<dbnet home>/replays/*.dbnr``, where
``dbnet play`` saves them.

Each warband is read and checked once, when the list is made (``read_shelf``), by the
check ``dbnet warband check`` makes (``WarbandList.breaches``); a file that is no
warband is listed with the reason.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import dbnet
from dbnet.catalog import Catalog, WarbandList, read_warband_list, slugify
from dbnet.catalog.warbands import DEFAULT_WARBANDS
from dbnet.engine.game import Breach
from dbnet.errors import DataError
from dbnet.protocol.identity import config_dir
from dbnet.replay.file import EXTENSION

WARBAND_FOLDER = "warbands"
REPLAY_FOLDER = "replays"


class Origin(enum.Enum):
    """Where a warband file comes from."""

    DEFAULT = "default"
    """The warband ``dbnet play`` gives you without ``--warband``."""
    SHIPPED = "shipped"
    EXAMPLE = "example"
    YOURS = "yours"


@dataclass(frozen=True, slots=True)
class WarbandFile:
    """One warband the screens list: its file (None for the default, which ``dbnet
    play`` takes without ``--warband``), its list if it reads, else why not."""

    origin: Origin
    path: Path | None
    listed: WarbandList | None
    error: str = ""

    @property
    def name(self) -> str:
        if self.listed is not None:
            return self.listed.name
        return self.path.name if self.path is not None else "?"

    @property
    def read_only(self) -> bool:
        return self.origin is not Origin.YOURS

    @property
    def breaches(self) -> list[Breach]:
        return self.listed.breaches() if self.listed is not None else []

    @property
    def refusal(self) -> str:
        """Why this warband cannot start a game (the first broken rule, or why the file is
        no warband); empty when it can."""
        if self.listed is None:
            return f"not a warband: {self.error}"
        breaches = self.breaches
        return f"not legal: {breaches[0]}" if breaches else ""

    @property
    def spawn_cost(self) -> int:
        """The spawn costs of its miniatures, added up."""
        if self.listed is None:
            return 0
        return sum(mini.spawn_cost * n for mini, n in self.listed.entries)

    def label(self) -> str:
        """``'yours pack.toml'``, ``'shipped warband-b.toml'``, ``'default'``."""
        if self.path is None:
            return "default"
        return f"{self.origin.value} {self.path.name}"

    def verdict(self) -> str:
        """``'legal'``, ``'NOT LEGAL'`` or ``'NOT A WARBAND'``: one word for a list row."""
        if self.listed is None:
            return "NOT A WARBAND"
        return "NOT LEGAL" if self.breaches else "legal"


def warband_folder() -> Path:
    """``<dbnet home>/warbands``, where your warbands are (not created here)."""
    return config_dir() / WARBAND_FOLDER


def replay_folder() -> Path:
    """``<dbnet home>/replays``, where ``dbnet play`` saves games."""
    return config_dir() / REPLAY_FOLDER


def shipped_folder() -> Path | None:
    """The folder of the shipped warband files, when they are files (not in a zip)."""
    folder = resources.files("dbnet.catalog").joinpath("data")
    path = Path(str(folder))
    return path if path.is_dir() else None


def examples_folder() -> Path | None:
    """``examples/warbands`` beside the package in a source checkout, else None."""
    folder = Path(dbnet.__file__).resolve().parent.parent / "examples" / "warbands"
    return folder if folder.is_dir() else None


def read_warband_file(path: Path, origin: Origin, catalog: Catalog) -> WarbandFile:
    try:
        return WarbandFile(origin, path, read_warband_list(path, catalog))
    except DataError as exc:
        return WarbandFile(origin, path, None, str(exc))


def read_shelf(catalog: Catalog, *, with_default: bool = False) -> list[WarbandFile]:
    """Your warbands (by file name), then the shipped ones and the examples; first the
    default one when ``with_default``. Nothing is written."""
    out: list[WarbandFile] = []
    shipped = shipped_folder()
    if with_default and shipped is not None:
        default = read_warband_file(shipped / DEFAULT_WARBANDS[0], Origin.DEFAULT, catalog)
        out.append(WarbandFile(Origin.DEFAULT, None, default.listed, default.error))
    folder = warband_folder()
    if folder.is_dir():
        out += [read_warband_file(p, Origin.YOURS, catalog) for p in _tomls(folder)]
    if shipped is not None:
        names = DEFAULT_WARBANDS[1:] if with_default else DEFAULT_WARBANDS
        out += [read_warband_file(shipped / n, Origin.SHIPPED, catalog) for n in names]
    examples = examples_folder()
    if examples is not None:
        out += [read_warband_file(p, Origin.EXAMPLE, catalog) for p in _tomls(examples)]
    return out


def _tomls(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.toml") if p.is_file() and not p.name.startswith("."))


def new_warband_path(name: str, folder: Path | None = None) -> Path:
    """A file in ``folder`` (your warband folder) for a warband called ``name`` that is
    not taken: ``pack.toml``, else ``pack-2.toml``..."""
    folder = warband_folder() if folder is None else folder
    stem = slugify(name) or "warband"
    path = folder / f"{stem}.toml"
    n = 2
    while path.exists():
        path = folder / f"{stem}-{n}.toml"
        n += 1
    return path


def ensure_folder(folder: Path) -> None:
    """Create ``folder`` (mode 0700) if needed.

    Raises:
        DataError: it cannot be created.
    """
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(str(folder), f"cannot create the folder: {exc.strerror or exc}") from exc


def list_replays(folder: Path | None = None) -> list[Path]:
    """The replay files in ``folder`` (your replay folder), newest name first (their names
    start with the time the game began)."""
    folder = replay_folder() if folder is None else folder
    if not folder.is_dir():
        return []
    return sorted((p for p in folder.glob(f"*{EXTENSION}") if p.is_file()), reverse=True)
