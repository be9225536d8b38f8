#!/bin/sh
# spindle-agent postinst (deb: configure [old-version]; rpm: $1 = 1 install, 2 upgrade).
# Idempotent: it may run again after a failed or repeated install.
set -e
case "$1" in
configure | 1 | 2) ;;
*) exit 0 ;; # abort-upgrade, abort-remove...: nothing of ours to redo
esac
install -d -m 0700 /etc/spindle /var/lib/spindle
install -d -m 0750 /var/log/spindle
CONFIG=/etc/spindle/agent.yaml
PID_FILE=/run/spindle/agent.pid
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	systemctl daemon-reload || true
	systemctl enable spindle-agent.service >/dev/null 2>&1 || true
	# Not enrolled yet: the agent would exit at once, so start it after `spindle-agent enroll`.
	if [ -f "$CONFIG" ]; then systemctl restart spindle-agent.service || true; fi
	exit 0
fi
# No systemd (containers, minimal images): run detached, as install.sh does, with the same
# pid and log files, so the agent's own upgrades find it (restart: auto).
[ -f "$CONFIG" ] || exit 0
if [ -f "$PID_FILE" ]; then
	pid=$(cat "$PID_FILE" 2>/dev/null || true)
	# dpkg and rpm replace the binary before this runs, so the running agent's exe reads
	# "/usr/bin/spindle-agent (deleted)": it is still ours to stop.
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
	if [ -n "$pid" ] && { [ "$exe" = /usr/bin/spindle-agent ] || [ "$exe" = "/usr/bin/spindle-agent (deleted)" ]; }; then
		kill "$pid" 2>/dev/null || true
		n=0
		while kill -0 "$pid" 2>/dev/null && [ $n -lt 30 ]; do sleep 1; n=$((n + 1)); done
	fi
fi
install -d -m 0755 /run/spindle
if [ -f /etc/default/spindle-agent ]; then
	set -a
	# shellcheck source=/dev/null # the operator's environment file, read at install time
	. /etc/default/spindle-agent
	set +a
fi
nohup /usr/bin/spindle-agent run --config "$CONFIG" >>/var/log/spindle/agent.log 2>&1 </dev/null &
echo $! >"$PID_FILE"
exit 0
