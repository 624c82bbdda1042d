"""The start of each connection of a network game (``dbnet.net.session``), steps 2
and 3 of docs/network.md: HELLO both ways, the proof of the invite's secret, the
peer's key and game checked (and the key pinned once the game has started), and for
a new game the host's OFFER and the joiner's ACCEPT, with the replay file opened and
the game's story told from it."""

from __future__ import annotations

import datetime
import functools
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from dbnet.engine import GameSetup, Player, Warband
from dbnet.errors import DbnetError, KnownPeerMismatchError
from dbnet.match.story import EventKind, Narrator
from dbnet.net.clocks import SessionClocks
from dbnet.net.link import Link, Timing
from dbnet.net.messages import Bye, Entry, Hello, Message, Ping, Pong
from dbnet.net.offer_terms import (
    _check_limited_offer,
    _limited_offer,
    _offered_setup,
    _terms,
    _warband_in,
)
from dbnet.net.proof import invite_secret, proof, proof_matches, watch_secret
from dbnet.net.session_values import (
    RESUME_NEEDS_INVITE,
    SEAT_NEEDS_INVITE,
    GameSessionError,
    LocalPlayer,
    NewGame,
    PeerLeftError,
    _ConnectionLostError,
    _Exchange,
    _nursery,
    _Signal,
    seat_narrator,
)
from dbnet.net.stream import RELAY
from dbnet.protocol.errors import ProtocolError
from dbnet.protocol.identity import fingerprint, same_fingerprint
from dbnet.protocol.remote import RemoteGame
from dbnet.replay.file import ReplayWriter
from dbnet.replay.paths import default_replay_path, now_utc, start_replay
from dbnet.text import printable
from dbnet.wire.bodies import OfferBody
from dbnet.wire.replay_header import ReplayHeader


class Greeting:
    """The steps of a ``GameSession`` connection before the game is played (HELLO, the
    checks, the OFFER and ACCEPT, the replay and the story): the session's attributes
    these methods use are set by ``GameSession.__init__``."""

    player: LocalPlayer
    game: RemoteGame | None
    writer: ReplayWriter | None
    new_game: NewGame | None
    replay_path: Path | None
    _given_path: Path | None
    timing: Timing
    invite_secret: bytes | None
    open_seat: bool
    narrator: Narrator | None
    peer_name: str | None
    _joining: bool
    _hosting: bool
    _created_at: str | None
    _nonce: bytes
    _peer_remembered: bool
    clocks: SessionClocks
    _changed: _Signal

    if TYPE_CHECKING:

        async def _aside(self, link: Link, message: Message) -> None: ...  # Playing's

    @staticmethod
    def _started(game: RemoteGame | None) -> bool:
        """Whether the game has started: both genesis entries (OFFER and ACCEPT) signed.
        Until then a host's OFFER binds nobody: the joiner may refuse it or vanish."""
        return game is not None and len(game.records) >= 2

    async def _exchange_hellos(self, link: Link) -> Hello:
        game = self.game
        ours = Hello(
            name=self.player.name,
            game_id=None if game is None else game.game_id,
            have=0 if game is None else len(game.records),
            warband=self._joiner_warband(),
            created=None if self._joining else self._created(),
            nonce=self._nonce if self._joiner_warband() is not None else None,
            proof=(
                None
                if self.invite_secret is None
                else proof(self.invite_secret, link.stream.transcript, joiner=self._joining)
            ),
        )
        message: Message | None = None
        # Both sides send first: sending while receiving keeps a stream with no buffer
        # (or a full one) from holding both HELLOs back.
        async with _nursery() as nursery:
            nursery.start_soon(link.send, ours)
            with trio.move_on_after(self.timing.hello_timeout):
                message = await link.receive()
                while isinstance(message, Ping | Pong):  # a rematch's connection stays alive
                    link.charge()
                    message = await link.receive()
        if message is None:
            raise _ConnectionLostError("no HELLO from the peer in time")
        if isinstance(message, Bye):
            raise PeerLeftError(f"the peer hung up: {printable(message.reason)}")
        if not isinstance(message, Hello):
            raise GameSessionError(f"the peer's first message is not HELLO but {message!r}")
        return message

    def _created(self) -> str:
        """The creation time of this side's replay header (fixed when first asked, for a
        game not started yet): the host tells the joiner, whose header copies it."""
        if self.writer is not None:
            return self.writer.header.created
        if self._created_at is None:
            self._created_at = now_utc().isoformat().replace("+00:00", "Z")
        return self._created_at

    def _joiner_warband(self) -> Warband | None:
        """The warband to send in HELLO: a new game's joiner sends it."""
        if self.game is None and self.new_game is not None and self._joining:
            return self.new_game.warband
        return None

    def _check_proof(self, link: Link, hello: Hello) -> None:
        """Whether the peer knows the invite's secret, where it must (``dbnet.net.proof``):
        a host this side joined through an invite always; a joiner of a host that made an
        invite on every path (LAN, IPv6, port mapping, relay, a reconnection) until the
        game has started, unless the host named the joiner's key (``expect``, which
        ``_check_peer`` checks) or seats anyone (``open_seat``, not through the relay:
        whoever learned the relay token must not take the seat)."""
        secret = self.invite_secret
        if secret is None or self._started(self.game):
            return  # a started game binds both keys: _check_peer asks for the game's own
        peer_joins = not self._joining
        if hello.proof is None:
            if self._joining:
                raise GameSessionError(
                    "the host did not prove that it made the invite (it has no proof of the "
                    "invite's secret): refusing to play",
                    to_peer="you did not prove that you made the invite",
                )
            if link.stream.path == RELAY:
                raise GameSessionError(
                    "a peer came through the relay without proof of the invite's secret",
                    to_peer="the relay path needs the invite: use dbnet join INVITE",
                )
            if self.open_seat or self.player.expect is not None:
                return
            raise GameSessionError(
                "a joiner came without proof of the invite's secret (this host seats only "
                "the holder of its invite, a key named with --expect, or anyone with --open)",
                to_peer=SEAT_NEEDS_INVITE if hello.game_id is None else RESUME_NEEDS_INVITE,
            )
        if not proof_matches(secret, link.stream.transcript, hello.proof, joiner=peer_joins):
            who = "joiner" if peer_joins else "host"
            raise GameSessionError(
                f"the {who}'s proof of the invite's secret is wrong (another invite, or an old "
                "one)",
                to_peer="your proof of the invite's secret is wrong: ask for a fresh invite",
            )

    def own_invite_secret(self) -> bytes:
        """The secret of the invites this side prints as host (``proof.invite_secret``):
        of its nonce in this game, the same when the game is resumed."""
        return invite_secret(self.player.identity, self._own_nonce())

    def own_watch_secret(self) -> bytes:
        """The secret of the spectator invites this side prints as host
        (``proof.watch_secret``): never the player's."""
        return watch_secret(self.player.identity, self._own_nonce())

    def _own_nonce(self) -> bytes:
        """This side's nonce in this game (the game id if it has none)."""
        game = self.game
        nonce = self._nonce
        if game is not None:
            body = game.log.decoded[0].body
            assert isinstance(body, OfferBody)
            mine = body.nonce if game.me is Player.A else body.joiner_nonce
            nonce = game.game_id if mine is None else mine
        return nonce

    def _check_peer(self, key: bytes, hello: Hello) -> None:
        player = self.player
        print_key = fingerprint(key)
        if key == player.identity.public_key:
            raise GameSessionError(
                f"the peer has this player's own key ({print_key}): two players on one "
                "machine need one DBNET_HOME each (e.g. DBNET_HOME=~/.dbnet-bob dbnet join "
                "...), or they share one identity",
                to_peer="you have my own key: give each player a DBNET_HOME of their own",
            )
        if player.expect is not None and not same_fingerprint(player.expect, print_key):
            raise GameSessionError(
                f"the peer's key fingerprint is {print_key}, not the expected {player.expect}: "
                "refusing to play (check the fingerprint with your opponent)",
                to_peer="your key is not the one this player expects",
            )
        game = self.game
        if game is not None and not self._offer_replaceable(hello):
            other = game.log.keys[game.me.other]
            if key != other:
                raise GameSessionError(
                    f"the peer ({printable(hello.name)}, {print_key}) is not the other player "
                    f"of this game ({fingerprint(other)})",
                    to_peer="you are not the other player of this game",
                )
        if player.known_peers is not None:
            try:
                player.known_peers.check(hello.name, key)
            except KnownPeerMismatchError as exc:
                raise GameSessionError(
                    str(exc), to_peer=f"your key is not the one remembered for {hello.name!r}"
                ) from exc

    def _remember_peer(self, game: RemoteGame, key: bytes) -> None:
        """Pin the peer's key in known_peers once the game has started with it (both
        genesis entries signed): a stranger who is refused, or who never answers the
        OFFER, leaves nothing behind under any name."""
        known = self.player.known_peers
        if self._peer_remembered or len(game.records) < 2 or self.peer_name is None:
            return
        self._peer_remembered = True
        if known is not None and known.check(self.peer_name, key) == "new":
            known.remember(self.peer_name, key)
            name = printable(self.peer_name)
            self.player.say(f"first game with {name}: key {fingerprint(key)} remembered")

    def _check_game(self, hello: Hello) -> None:
        """Whether the peer's HELLO fits this side's game (or new game)."""
        game = self.game
        if game is not None:
            if hello.game_id is not None and hello.game_id != game.game_id:
                raise GameSessionError(
                    "the peer is resuming another game (its game id differs from ours)"
                )
            if hello.game_id is None and not (self._hosting and len(game.records) == 1):
                # Only a joiner whose ACCEPT never arrived may come back without the game.
                raise GameSessionError(
                    f"the peer has no copy of this game ({len(game.records)} entries); it "
                    "must resume it from its replay (dbnet resume FILE HOST:PORT)"
                )
            return
        if self._joining:
            if hello.warband is not None:
                raise GameSessionError("the host sent a warband: both sides are trying to join")
            if hello.game_id is not None and hello.have != 1:
                raise GameSessionError(
                    f"the host is resuming an earlier game with you ({hello.have} entries): "
                    "go on with it with dbnet resume YOUR_REPLAY HOST:PORT"
                )
        else:
            if hello.game_id is not None:
                raise GameSessionError(
                    "the peer is resuming a game, but this side starts a new one"
                )
            if hello.warband is None:
                raise GameSessionError("the peer sent no warband: it is not joining a new game")
            if hello.nonce is None:
                raise GameSessionError(
                    "the peer sent no nonce for the new game: it speaks an older protocol"
                )

    def _offer_replaceable(self, hello: Hello) -> bool:
        """Whether this host's game is an OFFER nobody accepted and ``hello`` is a new
        joiner's: the OFFER binds nobody, so it may give way to a new one. (Not in a
        resumed game: it has no new game to offer instead, and its joiner is the OFFER's.)"""
        return (
            self._hosting
            and not self._joining
            and self.new_game is not None
            and self.game is not None
            and not self._started(self.game)
            and hello.game_id is None
            and hello.warband is not None
        )

    def _same_joiner(self, key: bytes, hello: Hello) -> bool:
        """Whether the OFFER held is the one this joiner asked for (same key, nonce and
        warband): then it is sent again (the joiner's ACCEPT was lost)."""
        game = self.game
        assert game is not None
        body = game.log.decoded[0].body
        assert isinstance(body, OfferBody)
        return (
            body.keys[1] == key
            and body.joiner_nonce == hello.nonce
            and hello.warband is not None
            and body.setup.warbands[1] == _warband_in(body.setup.limited, hello.warband)
        )

    def _discard_offer(self) -> None:
        """Forget an OFFER nobody accepted: its replay (ours, holding that OFFER alone) is
        removed, so a new game takes its place (and its path, if one was given)."""
        if self.writer is not None:
            self.writer.close()
        if self.replay_path is not None:
            self.replay_path.unlink(missing_ok=True)
        self.game = None
        self.writer = None
        self.narrator = None
        self.replay_path = self._given_path
        self._peer_remembered = False

    async def _ensure_game(self, link: Link, hello: Hello, exchange: _Exchange) -> RemoteGame:
        replace = self._offer_replaceable(hello) and not self._same_joiner(link.peer_key, hello)
        if replace:
            self.player.say("the OFFER made before was not accepted: offering a new game")
            self._discard_offer()
        if self.game is not None:
            return self.game
        if not self._joining:
            assert hello.warband is not None  # _check_game
            assert hello.nonce is not None
            return self._offer(link.peer_key, hello.warband, hello.nonce)
        game = await self._accept(link, hello)
        exchange.peer_has = max(exchange.peer_has, 1)  # the host sent us its OFFER
        return game

    def _offer(self, peer_key: bytes, their_warband: Warband, joiner_nonce: bytes) -> RemoteGame:
        new = self.new_game
        assert new is not None
        from dbnet.catalog import load_map
        from dbnet.catalog.check import check_warband

        try:
            check_warband(their_warband, "the joiner's warband")
        except DbnetError as exc:
            raise GameSessionError(
                f"refused the joiner's warband: {exc}", to_peer=f"your warband is refused: {exc}"
            ) from exc
        game_map = new.game_map if new.game_map is not None else load_map()
        setup = GameSetup(game_map, (new.warband, their_warband), options=new.options)
        if new.limited is not None:
            setup = _limited_offer(setup, new.limited)
        holder: list[bytes] = []
        game = RemoteGame.offer(
            self.player.identity,
            peer_key,
            setup,
            holder.append,
            nonce=self._nonce,
            joiner_nonce=joiner_nonce,
            name=self.player.name,
            clock=None if new.clock is None else new.clock.wire,
        )
        self._check_fresh(game.game_id)
        self._open_replay(game, holder)
        return game

    def _check_fresh(self, game_id: bytes) -> None:
        """Refuse a new game whose id was played here before (its dice would repeat), and
        record it otherwise, before anything of the game is sent."""
        played = self.player.played
        if played is None:
            return
        if game_id in played:
            raise GameSessionError(
                f"the new game's id {game_id.hex()[:16]} was played here before: refusing it, "
                "since its dice would repeat the earlier game's (the other side reused its "
                "nonce; with --seed, use another seed)",
                to_peer="this game id was played before: start a new game with fresh nonces",
            )
        played.add(game_id)

    async def _accept(self, link: Link, hello: Hello) -> RemoteGame:
        new = self.new_game
        assert new is not None
        message: Message | None = None
        with trio.move_on_after(self.timing.hello_timeout):
            while True:
                message = await link.receive()
                if isinstance(message, Entry):
                    break
                if isinstance(message, Bye):
                    raise PeerLeftError(f"the host hung up: {printable(message.reason)}")
                if isinstance(message, Hello):
                    raise GameSessionError("the host sent HELLO twice")
                await self._aside(link, message)  # a PUNCH may overtake the OFFER
        if not isinstance(message, Entry):
            raise _ConnectionLostError("no OFFER from the host in time")
        offer = _offered_setup(
            message.record,
            self.player.identity,
            link.peer_key,
            new.warband,
            self._nonce,
            hello.name,
        )
        _check_limited_offer(offer.setup, new.limited)
        self.player.say(_terms(offer, new.warband))  # before the ACCEPT
        holder: list[bytes] = []
        try:
            game = RemoteGame.accept(
                self.player.identity, message.record, holder.append, name=self.player.name
            )
        except ProtocolError as exc:
            raise GameSessionError(
                f"the host's OFFER is refused: {exc}", to_peer=f"your OFFER is refused: {exc}"
            ) from exc
        self._check_fresh(game.game_id)
        if hello.created is not None:
            self._created_at = hello.created  # the same header as the host's
        self._open_replay(game, holder)
        return game

    def _open_replay(self, game: RemoteGame, saved: list[bytes]) -> None:
        """Create the replay file of a new game and write its first records to it."""
        log = game.log
        created = self._created()
        header = ReplayHeader(
            format=log.version,  # format N holds entries of protocol version N
            protocol=log.version,
            rules=log.rules,
            game_id=log.game_id,
            keys=log.keys,
            created=created,
        )
        when = datetime.datetime.fromisoformat(created.replace("Z", "+00:00"))
        mine = self.player.identity.public_key
        path = self.replay_path or default_replay_path(log.game_id, when, reuse_for=mine)
        # a replay of ours that holds no entry (a disk that filled before the OFFER
        # fitted) is replaced: nothing in it can be lost
        writer = start_replay(path, header, replace_empty_for=mine)
        try:
            for record in saved:
                writer.append(record)
        except BaseException:
            writer.close()  # a full disk: the file keeps its header; resume says so
            raise
        self._save_with(game, writer)
        self.writer = writer
        self.replay_path = path
        self.game = game
        self.clocks.start(game, path)
        self.player.say(f"replay: {path}")
        self._start_narrator(game)
        self._changed.notify()

    def _save_with(self, game: RemoteGame, writer: ReplayWriter) -> None:
        """Save the game's records to ``writer``: ours fsynced before they are sent, the
        peer's written without waiting for the disk (the peer resends them if lost)."""
        game.save = writer.append
        game.save_received = functools.partial(writer.append, sync=False)

    def _start_narrator(self, game: RemoteGame) -> None:
        """Tell the game so far (a resumed game's whole story, told as ``restore_game``
        checked it) and follow it from here."""
        teller = game.log.teller
        if isinstance(teller, Narrator):
            self.narrator = teller
        else:
            self.narrator = seat_narrator(game.log, game.me)
        self._narrate(game)

    def _narrate(self, game: RemoteGame) -> None:
        """Tell the entries not told yet, then the rolls this player can already see."""
        narrator = self.narrator
        if narrator is None:
            return
        events = narrator.follow(game.log) + narrator.catch_up(game.peer)
        if events and self.player.on_events is not None:
            self.player.on_events(events)
        line = self.clocks.line()
        if line is not None and any(e.kind is EventKind.TURN for e in events):
            self.player.say(line)  # the clocks at every turn
