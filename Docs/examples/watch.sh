#!/bin/sh
# Print rotationd's JSON lines with nothing but socat; the same one-liner works typed at a prompt:
#   socat -u UNIX-CONNECT:"${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}" -
# Ask for the current state and leave (-t: how long to wait for the reply after sending):
#   echo '{"cmd":"state"}' | socat -t 0.5 - UNIX-CONNECT:"${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}"
# With OpenBSD netcat instead of socat:  nc -U "${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}"
exec socat -u UNIX-CONNECT:"${ROTATIOND_SOCKET:-/run/rotationd/rotationd.sock}" -
