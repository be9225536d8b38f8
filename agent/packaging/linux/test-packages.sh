#!/bin/sh
# Builds the agent's .deb and .rpm and checks them with the real tools: dpkg-deb and rpm read
# them; dpkg installs, upgrades (keeping an edited conffile), removes and purges on this host;
# rpm installs and upgrades into a scratch root (config(noreplace) kept). Needs root, dpkg and
# rpm (apt-get install rpm). Refuses to run where a spindle-agent is already installed.
# Usage: sh test-packages.sh     (TMPDIR picks the scratch folder's parent)
set -eu
cd "$(dirname "$0")"
fail() { echo "test-packages: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root: dpkg -i installs on this host"
command -v rpm >/dev/null || fail "rpm is missing: apt-get install rpm"
# The gateway's apt test (apps/gateway/internal/httpapi/aptrepo_test.go) installs spindle-agent on
# this host too, beside this script in npm test: one at a time, under the same lock.
command -v flock >/dev/null || fail "flock is missing: apt-get install util-linux"
exec 9>/run/lock/spindle-agent-package-tests.lock
flock 9
if dpkg-query -W spindle-agent >/dev/null 2>&1 || [ -e /usr/bin/spindle-agent ] || [ -e /etc/spindle ]; then
	fail "a spindle-agent is already installed here; this test would remove it"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/spindle-pkg-test.XXXXXX")
installed=no
# The pids of the agents the package runs: their binary is /usr/bin/spindle-agent, or was, before a
# package replaced it.
package_agents() {
	for exe in /proc/[0-9]*/exe; do
		case "$(readlink "$exe" 2>/dev/null)" in
		/usr/bin/spindle-agent | "/usr/bin/spindle-agent (deleted)") pid=${exe#/proc/} && echo "${pid%/exe}" ;;
		esac
	done
}
cleanup() {
	if [ "$installed" = yes ]; then
		dpkg -P spindle-agent >/dev/null 2>&1 || true
		for pid in $(package_agents); do kill "$pid" 2>/dev/null || true; done
		# None of these existed at the start (checked above): leave the host as it was.
		rm -rf /etc/spindle /var/lib/spindle /var/log/spindle /run/spindle /etc/default/spindle-agent
	fi
	rm -rf "$work"
}
trap cleanup EXIT

arch=$(go env GOARCH)
for v in 0.9.1 0.9.2; do
	mkdir -p "$work/bin-$v"
	(cd ../.. && CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags "-s -w -X main.version=$v" \
		-o "$work/bin-$v/spindle-agent-linux-$arch" ./cmd/spindle-agent)
	go run . -bin "$work/bin-$v" -out "$work/pkgs" -version "$v" -arch "$arch" >/dev/null
done
deb1="$work/pkgs/spindle-agent_0.9.1_$arch.deb"
deb2="$work/pkgs/spindle-agent_0.9.2_$arch.deb"
rpm1=$(ls "$work"/pkgs/spindle-agent-0.9.1-1.*.rpm)
rpm2=$(ls "$work"/pkgs/spindle-agent-0.9.2-1.*.rpm)

# --- .deb, as dpkg-deb reads it
[ "$(dpkg-deb --field "$deb1" Package Version Architecture | tr '\n' ' ')" = "Package: spindle-agent Version: 0.9.1 Architecture: $arch " ] ||
	fail "deb control fields: $(dpkg-deb --field "$deb1")"
contents=$(dpkg-deb --contents "$deb1")
for f in ./usr/bin/spindle-agent ./lib/systemd/system/spindle-agent.service ./etc/default/spindle-agent; do
	echo "$contents" | grep -q " $f\$" || fail "deb lacks $f"
done
dpkg-deb --ctrl-tarfile "$deb1" | tar -xO ./conffiles | grep -qx /etc/default/spindle-agent ||
	fail "deb does not mark /etc/default/spindle-agent as a conffile"
# The agent reads how it was installed beside its binary, and leaves upgrades to the package manager.
[ "$(dpkg-deb --fsys-tarfile "$deb1" | tar -xO ./usr/lib/spindle-agent/install-method)" = deb ] ||
	fail "deb lacks /usr/lib/spindle-agent/install-method saying deb"

# --- .rpm, as rpm reads it, then installed and upgraded into a scratch root (no scriptlets:
# the root has no shell; dpkg below runs the same scripts for real)
[ "$(rpm -qp --qf '%{NAME} %{VERSION}' "$rpm1")" = "spindle-agent 0.9.1" ] || fail "rpm name/version"
rpm -qlp "$rpm1" | grep -qx /usr/bin/spindle-agent || fail "rpm lacks /usr/bin/spindle-agent"
rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$rpm1" | grep -qx '/etc/default/spindle-agent cn' ||
	fail "rpm does not mark /etc/default/spindle-agent as config(noreplace)"
root="$work/rpmroot"
mkdir -p "$root"
rpm --force-debian --root "$root" --install --nodeps --noscripts --ignorearch "$rpm1"
[ -x "$root/usr/bin/spindle-agent" ] || fail "rpm install: no binary in $root"
[ "$(cat "$root/usr/lib/spindle-agent/install-method")" = rpm ] || fail "rpm lacks /usr/lib/spindle-agent/install-method saying rpm"
echo 'GOMEMLIMIT=123MiB' >>"$root/etc/default/spindle-agent"
rpm --force-debian --root "$root" --upgrade --nodeps --noscripts --ignorearch "$rpm2"
[ "$(rpm --root "$root" -q --qf '%{VERSION}' spindle-agent)" = 0.9.2 ] || fail "rpm upgrade: not 0.9.2"
grep -qx 'GOMEMLIMIT=123MiB' "$root/etc/default/spindle-agent" || fail "rpm upgrade lost the edited config"

# --- .deb installed on this host: install, upgrade, reinstall, remove, purge
installed=yes
dpkg -i "$deb1" >/dev/null
[ "$(/usr/bin/spindle-agent version 2>&1 | grep -o '0\.9\.[0-9]' | head -1)" = 0.9.1 ] || fail "installed binary is not 0.9.1"
if [ "$(stat -c %a /etc/spindle)" != 700 ] || [ "$(stat -c %a /var/lib/spindle)" != 700 ]; then fail "state folders are not 0700"; fi
echo 'GOMEMLIMIT=123MiB' >>/etc/default/spindle-agent
# Enrolled and without systemd (as here): the upgrade's postinst starts the agent detached, as
# install.sh does. Its gateway is nowhere, so it keeps retrying while it runs; its log proves the
# script ran the new binary with the config, and that the agent knows apt manages it: it says it
# will not replace its own binary when the console offers an upgrade, and how to upgrade instead.
printf 'gateway: http://127.0.0.1:1\ncredential: spc_package_test\nagent_id: 00000000-0000-4000-8000-000000000001\nserver_id: 00000000-0000-4000-8000-000000000002\n' >/etc/spindle/agent.yaml
dpkg -i --force-confold "$deb2" >/dev/null
[ "$(dpkg-query -W -f '${Version}' spindle-agent)" = 0.9.2 ] || fail "dpkg upgrade: not 0.9.2"
grep -qx 'GOMEMLIMIT=123MiB' /etc/default/spindle-agent || fail "dpkg upgrade lost the edited conffile"
[ -s /run/spindle/agent.pid ] || fail "no systemd: postinst did not start the agent detached"
n=0
while [ ! -s /var/log/spindle/agent.log ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -s /var/log/spindle/agent.log ] || fail "the detached agent wrote nothing to /var/log/spindle/agent.log"
n=0
while ! grep -q 'install_method=deb' /var/log/spindle/agent.log && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
grep 'does not replace its own binary' /var/log/spindle/agent.log | grep 'install_method=deb' | grep -q 'managed by apt' ||
	fail "the dpkg-installed agent does not say apt manages its upgrades: $(tail -5 /var/log/spindle/agent.log)"
dpkg -i "$deb2" >/dev/null # a repeated install is harmless: the agent it replaced is stopped
[ "$(package_agents | wc -l)" = 1 ] || fail "after a repeated install, agents running: $(package_agents | tr '\n' ' ')"
dpkg -r spindle-agent >/dev/null
n=0
while [ -n "$(package_agents)" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
[ -z "$(package_agents)" ] || fail "dpkg -r left the agent running: $(package_agents | tr '\n' ' ')"
[ ! -e /usr/bin/spindle-agent ] || fail "dpkg -r left the binary"
[ ! -e /run/spindle/agent.pid ] || fail "dpkg -r left the pid file"
if [ ! -f /etc/spindle/agent.yaml ] || [ ! -f /etc/default/spindle-agent ]; then fail "dpkg -r removed configuration"; fi
dpkg -P spindle-agent >/dev/null
installed=no
for p in /etc/spindle /var/lib/spindle /var/log/spindle /etc/default/spindle-agent; do
	[ ! -e "$p" ] || fail "dpkg -P left $p"
done
echo "test-packages: ok (deb and rpm, $arch)"
