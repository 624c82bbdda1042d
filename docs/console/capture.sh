#!/usr/bin/env bash
# Regenerate the text captures of the console client in docs/console/.
#
# Runs `dbnet play` (full screen, as on any terminal) in a private tmux server
# (its own socket), plays a repeatable game (--seed 1, no bot pause) by picking
# the first legal choice with Down and Enter, and saves the panes at 80x24 and
# at 120x40, among them an ability decision (seed 1 is the first seed whose
# game, played that way, brings A's Rallying Beacon to choose the targets of its
# Advance 2 with few enough choices for the panel to say what each does). Then
# runs `dbnet replay` on replays/01-greedy-vs-random.dbnr and on a copy with one
# flipped bit, and saves the viewer's panes. Last, `dbnet host` and `dbnet join`
# on loopback, each in a window of its own: the host's screen while connected,
# then after the joiner's process is killed (reconnecting), then after `dbnet
# resume` brings it back. The games' replays and configuration go to a
# temporary folder, removed at the end. First of all, `dbnet` with no command:
# the main menu, the Warbands screen and the pre-game screen (a legal warband,
# then an illegal one refused with its rule).
#
#   docs/console/capture.sh            (from anywhere; needs tmux and dbnet installed)
#   docs/console/capture.sh menu       (only the main menu's screens)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"
socket="dbnet-capture-$$"
tmux=(tmux -L "$socket" -f /dev/null)
joiner=(tmux -L "$socket-join" -f /dev/null)
work="$(mktemp -d)"

cleanup() {
    local path
    path="$("${tmux[@]}" display-message -p '#{socket_path}' 2>/dev/null || true)"
    "${tmux[@]}" kill-server 2>/dev/null || true
    if [ -n "$path" ]; then rm -f -- "$path"; fi
    path="$("${joiner[@]}" display-message -p '#{socket_path}' 2>/dev/null || true)"
    "${joiner[@]}" kill-server 2>/dev/null || true
    if [ -n "$path" ]; then rm -f -- "$path"; fi
    rm -rf -- "$work"
}
trap cleanup EXIT

pane() { "${tmux[@]}" capture-pane -p -t cap; }

wait_for() {  # wait_for TEXT: poll the pane until TEXT shows (20 s at most)
    for _ in $(seq 200); do
        if pane | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    echo "capture.sh: '$1' never appeared; the pane:" >&2
    pane >&2
    exit 1
}

keys() { "${tmux[@]}" send-keys -t cap "$@"; }

# Play the first legal choice, answering yes to "end the phase?", until the
# top bar shows $1 (or, with a second argument "screen", the screen does).
play_until() {
    local where="${2:-top}"
    for _ in $(seq 400); do
        if [ "$where" = top ] && pane | head -1 | grep -qF -- "$1"; then return 0; fi
        if [ "$where" = screen ] && pane | grep -qF -- "$1"; then return 0; fi
        if pane | grep -qF "[y] yes"; then
            keys y
        elif pane | grep -qE '^[AB]> *$'; then
            keys Down Enter
        fi
        sleep 0.15
    done
    echo "capture.sh: never reached '$1'" >&2
    pane >&2
    exit 1
}

save() {  # save NAME: the pane, trailing blanks trimmed, into docs/console/NAME.txt
    pane | sed -e 's/[[:space:]]*$//' >"$here/$1.txt"
    echo "wrote docs/console/$1.txt"
}

run() {  # run COMMAND...: a new window of 80x24 running COMMAND in $work
    "${tmux[@]}" kill-session -t cap 2>/dev/null || true
    "${tmux[@]}" new-session -d -x 80 -y 24 -s cap -c "$work" \
        "env -u NO_COLOR TERM=xterm-256color DBNET_HOME=$work/home $*"
}

# --- the main menu and the pre-game screen ----------------------------------------------

mkdir -p "$work/home/warbands"
cat >"$work/home/warbands/night-pack.toml" <<'EOF'
name = "Night Pack"
minis = [{ name = "Frenzied Gorehound", count = 3 }, "Crucible of Fury"]
EOF
cat >"$work/home/warbands/too-many-hounds.toml" <<'EOF'
name = "Too Many Hounds"
minis = [{ name = "Frenzied Gorehound", count = 4 }]
EOF
run "$python -m dbnet"
wait_for "Play against the computer"
save menu-80x24
keys w
wait_for "Warbands: yours in"
save menu-80x24-warbands
keys Escape
wait_for "Play against the computer"
keys p
wait_for "New game against the computer"
save menu-80x24-pregame
keys Down Down
wait_for "> Too Many Hounds"
keys Enter
wait_for "Cannot start"
save menu-80x24-pregame-illegal
keys q
wait_for "Play against the computer"
keys q
sleep 0.5
if [ "${1:-}" = menu ]; then exit 0; fi

# --- a game against the bot ---------------------------------------------------------

run "$python -m dbnet play --seed 1 --bot-delay 0 --replay game.dbnr"
wait_for "Your decision: A to spawn"
save local-80x24-start

keys -l "sp vang"
keys Tab
wait_for "spawn vanguard-herald#2 e1"
save local-80x24-completion
keys C-u Escape
sleep 0.6

# an ability decision: the targets of a spawn ability, each choice with what it does
play_until "chooses the targets of" screen
sleep 0.3
save local-80x24-ability
keys -l "target v"
keys Tab
sleep 0.5
save local-80x24-ability-completion
keys C-u Escape
sleep 0.6

play_until "Turn 4, action phase"
sleep 0.3
save local-80x24

"${tmux[@]}" resize-window -t cap -x 120 -y 40
sleep 0.5
save local-120x40

"${tmux[@]}" resize-window -t cap -x 80 -y 24
sleep 0.5
keys C-q
wait_for "[y] yes"
save local-80x24-quit
keys y

# --- the replay viewer ----------------------------------------------------------------

cp "$root/replays/01-greedy-vs-random.dbnr" "$work/"
run "$python -m dbnet replay 01-greedy-vs-random.dbnr"
wait_for "Right (or n) steps forward"
save replay-80x24-start

keys Right Right Right
wait_for "Step 3 of "
save replay-80x24-step

keys -l ":3"
keys Enter
wait_for "Turn 3, its first step."
save replay-80x24-turn

# the game's last attack roll
attack="$("$python" - "$root/replays/01-greedy-vs-random.dbnr" <<'EOF'
import sys
from pathlib import Path

from dbnet.console.replay_view import ReplayModel

path = Path(sys.argv[1])
model = ReplayModel.from_bytes(path.read_bytes(), where=str(path))
print(max(s.number for s in model.steps if " attack di" in s.words))
EOF
)"
keys -l "#$attack"
keys Enter
wait_for "Step $attack of "
keys F5
sleep 0.3
save replay-80x24-attack

keys End F1
sleep 0.3
"${tmux[@]}" resize-window -t cap -x 120 -y 40
sleep 0.5
save replay-120x40-end
keys q

# one flipped bit in record 30's signature: invalid from there on
"$python" - "$work/01-greedy-vs-random.dbnr" "$work/tampered.dbnr" <<'EOF'
import sys

data = bytearray(open(sys.argv[1], "rb").read())
offset = 8  # the magic; then each record: 4 bytes of length, the record
for _ in range(30):
    offset += 4 + int.from_bytes(data[offset : offset + 4], "big")
size = int.from_bytes(data[offset : offset + 4], "big")
data[offset + 4 + size - 1] ^= 1  # the signature ends the record
open(sys.argv[2], "wb").write(bytes(data))
EOF
run "$python -m dbnet replay tampered.dbnr"
wait_for "INVALID"
keys End
wait_for "The replay stops"
save replay-80x24-invalid
keys q

# --- a network game: host and join on loopback ----------------------------------------

sleep 1  # the viewer's window has closed, and the tmux server with it
port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
run "$python -m dbnet host --open --port $port --name alice --replay host.dbnr"
wait_for "listening on port"
"${joiner[@]}" new-session -d -x 80 -y 24 -s cap -c "$work" "bash --norc --noprofile"
join_keys() { "${joiner[@]}" send-keys -t cap "$@"; }
join_pane() { "${joiner[@]}" capture-pane -p -t cap; }
join_cmd="env -u NO_COLOR TERM=xterm-256color DBNET_HOME=$work/bob"
join_keys -l "$join_cmd $python -m dbnet join 127.0.0.1:$port --name bob --replay join.dbnr"
join_keys Enter
wait_for "[connected to bob]"
# both answer their decisions (the first legal choice) until the host owes one in turn 2
for _ in $(seq 400); do
    if pane | head -1 | grep -qF "Turn 2," && pane | grep -qE '^A> *$' &&
        pane | grep -qF "Your decision: A"; then break; fi
    if pane | grep -qF "[y] yes"; then
        keys y
    elif pane | grep -qE '^A> *$' && pane | grep -qF "Your decision"; then
        keys Down Enter
    fi
    if join_pane | grep -qF "[y] yes"; then
        join_keys y
    elif join_pane | grep -qE '^B> *$' && join_pane | grep -qF "Your decision"; then
        join_keys Down Enter
    fi
    sleep 0.15
done
sleep 0.3
save network-80x24-host

shell="$("${joiner[@]}" list-panes -t cap -F '#{pane_pid}')"
kill -KILL "$(cat "/proc/$shell/task/$shell/children")"
wait_for "[reconnecting...]"
sleep 0.3
save network-80x24-reconnecting

join_keys -l "stty sane; clear; $join_cmd $python -m dbnet resume join.dbnr 127.0.0.1:$port --name bob"
join_keys Enter
wait_for "[connected to bob]"
sleep 0.5
save network-80x24-resumed
keys C-q
wait_for "[y] yes"
keys y
