#!/bin/sh
# Print rotationd's JSON lines with nothing but socat. The socket is $ROTATIOND_SOCKET, else
# $XDG_RUNTIME_DIR/rotationd.sock when it exists (not as root), else the system socket; typed at a prompt:
#   socat -u UNIX-CONNECT:"${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}" -
# Ask for the current state and leave (-t: how long to wait for the reply after sending):
#   echo '{"cmd":"state"}' | socat -t 0.5 - UNIX-CONNECT:"${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}"
# With OpenBSD netcat instead of socat:  nc -U "${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}"
socket=$ROTATIOND_SOCKET
if [ -z "$socket" ]; then
    socket=/run/rotationd/rotationd.sock
    if [ "$(id -u)" != 0 ] && [ -n "$XDG_RUNTIME_DIR" ] && [ -S "$XDG_RUNTIME_DIR/rotationd.sock" ]; then
        socket=$XDG_RUNTIME_DIR/rotationd.sock
    fi
fi
exec socat -u UNIX-CONNECT:"$socket" -
