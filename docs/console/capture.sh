#!/usr/bin/env bash
# Regenerate the text captures of the console client in docs/console/.
#
# Runs `python -m dbnet.console` in a private tmux server (its own socket), plays
# a repeatable game (--seed 3, no bot pause) by picking the first legal choice
# with Down and Enter, and saves the panes at 80x24 and at 120x40.
#
#   docs/console/capture.sh            (from anywhere; needs tmux and dbnet installed)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
socket="dbnet-capture-$$"
tmux=(tmux -L "$socket" -f /dev/null)

cleanup() {
    local path
    path="$("${tmux[@]}" display-message -p '#{socket_path}' 2>/dev/null || true)"
    "${tmux[@]}" kill-server 2>/dev/null || true
    if [ -n "$path" ]; then rm -f -- "$path"; fi
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
# top bar shows $1.
play_until() {
    for _ in $(seq 300); do
        if pane | head -1 | grep -qF -- "$1"; then return 0; fi
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

"${tmux[@]}" new-session -d -x 80 -y 24 -s cap \
    "env -u NO_COLOR TERM=xterm-256color $python -m dbnet.console --seed 3 --bot-delay 0"
wait_for "Your decision: A to spawn"
save local-80x24-start

keys -l "sp mur"
keys Tab
wait_for "spawn murmur-wisp#2 e1"
save local-80x24-completion
keys C-u Escape
sleep 0.6

play_until "Turn 3, action phase"
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
