"""Help text more than one command shows (argparse epilogs)."""

from __future__ import annotations

from typing import Final

HOME_HELP: Final = """\
environment:
  DBNET_HOME  the folder of your identity key, known peers and played games
              (default: $XDG_CONFIG_HOME/dbnet, else ~/.config/dbnet). Two players
              on one machine need one each: DBNET_HOME=~/.dbnet-alice dbnet host
"""
