#!/bin/sh
# spindle-agent prerm (deb: remove | upgrade <new>; rpm: $1 = 0 remove, 1 upgrade).
# Stops the agent only on removal: an upgrade restarts it in the new postinst.
set -e
case "$1" in
remove | 0) ;;
*) exit 0 ;;
esac
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	systemctl stop spindle-agent.service >/dev/null 2>&1 || true
	systemctl disable spindle-agent.service >/dev/null 2>&1 || true
fi
PID_FILE=/run/spindle/agent.pid
if [ -f "$PID_FILE" ]; then
	pid=$(cat "$PID_FILE" 2>/dev/null || true)
	# dpkg and rpm replace the binary before this runs, so the running agent's exe reads
	# "/usr/bin/spindle-agent (deleted)": it is still ours to stop.
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
	if [ -n "$pid" ] && { [ "$exe" = /usr/bin/spindle-agent ] || [ "$exe" = "/usr/bin/spindle-agent (deleted)" ]; }; then
		kill "$pid" 2>/dev/null || true
	fi
	rm -f "$PID_FILE"
fi
exit 0
