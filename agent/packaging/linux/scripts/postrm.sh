#!/bin/sh
# spindle-agent postrm (deb: remove | purge | upgrade...; rpm: $1 = 0 remove, 1 upgrade).
# Removal keeps enrollment and state (a reinstall rejoins as the same agent); purge deletes them.
set -e
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	systemctl daemon-reload >/dev/null 2>&1 || true
fi
if [ "$1" = purge ]; then
	rm -rf /etc/spindle /var/lib/spindle /var/log/spindle /run/spindle
fi
exit 0
