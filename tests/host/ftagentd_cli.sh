#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ftagentd's command line and packaging, on the host (no module needed):
# --check-config on good and bad files, the exit code and message when the
# module is not loaded, and the systemd unit as systemd-analyze reads it.
# Prints TAP.
#
# usage: ftagentd_cli.sh BUILD_DIR
set -u
# shellcheck source=tests/lib/results.sh
. "$(dirname "$0")/../lib/results.sh"
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
ftagentd=$(cd "$build" && pwd)/ftagentd
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run EXPECTED_STATUS PATTERN COMMAND...: status and stderr+stdout match
run() {
	local want=$1 pattern=$2 out status
	shift 2
	out=$("$@" 2>&1)
	status=$?
	if [ "$status" -ne "$want" ]; then
		echo "# '$*' exited $status, want $want: $out"
		return 1
	fi
	if ! grep -qE -- "$pattern" <<<"$out"; then
		echo "# '$*' said '$out', want /$pattern/"
		return 1
	fi
}

echo "1..11"
cat >"$tmp/good.conf" <<'CONF'
[agent]
mode = standard
flush_interval = 500ms
event_log_size = 8MB

[limits]
processes = 1024

[metrics]
listen = "127.0.0.1:9465"
CONF
check "a good file passes --check-config" \
	run 0 "good.conf: ok" "$ftagentd" --check-config -c "$tmp/good.conf"

printf '[agent]\nmode = standard\n\n[limits]\nsockets = many\n' >"$tmp/bad.conf"
check "a bad file names file, line and key (exit 6)" \
	run 6 "bad.conf:5: \[limits\] sockets: " \
	"$ftagentd" --check-config -c "$tmp/bad.conf"

check "a missing -c file is an error (exit 6)" \
	run 6 "nonexistent.conf" "$ftagentd" --check-config \
	-c "$tmp/nonexistent.conf"

check "unknown options are usage errors (exit 2)" \
	run 2 "usage: ftagentd" "$ftagentd" --no-such-option

# This host's kernel has no ftagent module (it refuses modules).
if grep -q '^ftagent ' /proc/modules 2>/dev/null; then
	echo "# the module is loaded on this host: cannot test its absence"
	check "without the module: exit 3 and says so" false
else
	check "without the module: exit 3 and says so" \
		run 3 "module is not loaded" "$ftagentd" -c "$tmp/good.conf" \
		--socket "$tmp/s.sock" --state-dir "$tmp/state"
fi

# One daemon at a time: the state directory's lock is taken before the
# module is even looked for, so a held lock wins over the absent module.
mkdir -p "$tmp/busy"
echo 4242 >"$tmp/busy/lock"
check "a second daemon on a locked state directory exits 5 and names the first" \
	flock "$tmp/busy/lock" \
	bash -c "$(declare -f run); run 5 'another ftagentd \\(pid 4242\\) is running' \
	\"$ftagentd\" -c \"$tmp/good.conf\" --socket \"$tmp/b.sock\" --state-dir \"$tmp/busy\""

# A socket someone listens on is not unlinked from under them.
live_socket_kept() {
	python3 - "$tmp/live.sock" "$ftagentd" "$tmp/good.conf" "$tmp/live-state" <<'PY'
import socket, subprocess, sys, os
path, ftagentd, conf, state = sys.argv[1:]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(1)
p = subprocess.run([ftagentd, "-c", conf, "--socket", path, "--state-dir", state],
                   capture_output=True, text=True)
c = socket.socket(socket.AF_UNIX)
c.connect(path)  # still ours: the daemon did not unlink it
print("# exit %d: %s" % (p.returncode, p.stderr.strip()))
sys.exit(0 if p.returncode == 5 and "another ftagentd listens" in p.stderr else 1)
PY
}
check "a socket another daemon listens on is neither unlinked nor taken" \
	live_socket_kept

check "the shipped example config is valid" \
	run 0 "ok" "$ftagentd" --check-config -c "$top/daemon/ftagent.conf.example"

# make install into a staging root puts every piece where the unit expects.
staged_install() {
	make -s -C "$top" install DESTDIR="$tmp/root" BUILD="$build" >/dev/null &&
		[ -x "$tmp/root/usr/sbin/ftagentd" ] &&
		[ -x "$tmp/root/usr/bin/ftctl" ] &&
		[ -f "$tmp/root/lib/systemd/system/ftagentd.service" ] &&
		[ -f "$tmp/root/lib/systemd/system/sys-fs-ftagent.mount" ] &&
		[ -f "$tmp/root/etc/modules-load.d/ftagent.conf" ] &&
		"$tmp/root/usr/sbin/ftagentd" --check-config \
			-c "$tmp/root/etc/ftagent/ftagent.conf" >/dev/null
}
check "make install stages a working layout" staged_install

check "--version names the ABI" run 0 "ftagentd .* \(ABI [0-9]+\.[0-9]+\)" \
	"$ftagentd" --version

# systemd-analyze only warns (status 0) about a bad unit: any output fails.
verify_unit() {
	local out
	sed "s#/usr/sbin/ftagentd#$ftagentd#" \
		"$top/daemon/systemd/ftagentd.service" >"$tmp/ftagentd.service"
	cp "$top/daemon/systemd/sys-fs-ftagent.mount" "$tmp/"
	out=$(systemd-analyze verify "$tmp/ftagentd.service" \
		"$tmp/sys-fs-ftagent.mount" 2>&1)
	[ -z "$out" ] || { echo "# $out"; return 1; }
}
check "systemd-analyze accepts the unit and its mount" verify_unit

[ "$failed" -eq 0 ]
