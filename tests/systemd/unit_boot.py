#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ftagentd under the real systemd unit, in a guest that boots systemd
(tools/guest/run-guest --systemd): what docs/ftagentd.md promises about
boot, restarts and privileges, as the installed unit delivers it.

Phase prepare (before systemd starts): `make install` into the guest's
writable overlay, the module into /lib/modules/KVER/updates, a config
whose policy denies connects to 127.0.0.1:DENIED_PORT, and
`systemctl enable ftagentd`. Phase run (an ordinary service, After=
basic.target): the checks below. Prints TAP.

usage: unit_boot.py BUILD_DIR MODULE.ko
"""
import errno
import json
import os
import re
import socket
import subprocess
import sys
import time
import traceback
import urllib.request

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(sys.argv[1])
MODULE = os.path.abspath(sys.argv[2])
DENIED_PORT = 9  # nothing listens: refused by the gate, or ECONNREFUSED
N_EXECS = 300
WAIT_S = 90
CONF = "/etc/ftagent/ftagent.conf"
METRICS = "127.0.0.1:9465"


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True,
                          **kw).stdout


def prepare():
    """What a package would do, on the overlay (nothing reaches the host)."""
    sh("make", "-C", TOP, "--no-print-directory", "BUILD=" + BUILD,
       "PREFIX=/usr", "install")
    kver = os.uname().release
    dest = "/lib/modules/%s/updates" % kver
    os.makedirs(dest, exist_ok=True)
    sh("cp", MODULE, dest + "/ftagent.ko")
    sh("depmod", "-a", kver)
    with open(CONF) as f:
        text = f.read()
    # The example's [metrics] section, with its listen line switched on.
    on = re.sub(r"^; *listen = \S+", "listen = " + METRICS, text, count=1,
                flags=re.M)
    assert on != text, "no '; listen =' line in the example's [metrics]"
    with open(CONF, "w") as f:
        f.write(on)
        f.write("\n[policy.test-denied]\nops = connect\naction = deny\n"
                "port = %d\n" % DENIED_PORT)
    sh("systemctl", "enable", "ftagentd.service")


def connect_errno(port):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", port))
        return 0
    except OSError as e:
        return e.errno
    finally:
        s.close()


def prop(unit, name):
    return sh("systemctl", "show", "-P", name, unit).strip()


def wait_for(what, fn):
    deadline = time.monotonic() + WAIT_S
    last = None
    while time.monotonic() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError("%s: not seen in %d s (last: %r)"
                         % (what, WAIT_S, last))


def eq(what, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


def answers():
    r = subprocess.run(["ftctl", "stats"], capture_output=True, text=True)
    return r.returncode == 0 and "KERNEL" in r.stdout


def active_with_new_pid(old):
    pid = prop("ftagentd.service", "MainPID")
    return (prop("ftagentd.service", "ActiveState") == "active"
            and pid not in ("0", old) and answers() and pid)


def run_trues(n):
    pids = []
    for _ in range(n):
        p = subprocess.Popen(["/bin/true"])
        eq("true's status", p.wait(), 0)
        pids.append(p.pid)
    return pids


def all_execs_seen(pids, how):
    def missing():
        evs = json.loads(sh("ftctl", "--json", "events", "--since", "1h",
                            "--type", "exec", "--limit", "100000"))
        seen = {e["pid"] for e in evs}
        return [p for p in pids if p not in seen]
    try:
        wait_for("every exec", lambda: not missing())
    except AssertionError:
        m = missing()
        raise AssertionError("%s: %d of %d execs missing from ftctl events"
                             " (first: %r)" % (how, len(m), len(pids), m[:5]))


# The first test runs first: nothing may come before it in this service.
def test_policy_in_force_before_ordinary_services():
    """This service is ordinary (After=basic.target): the configured
    rule refuses its very first connect, and the unit was ready (policy
    pushed) before basic.target was reached."""
    eq("first connect to the denied port", connect_errno(DENIED_PORT),
       errno.EPERM)
    ready = int(prop("ftagentd.service", "ActiveEnterTimestampMonotonic"))
    basic = int(prop("basic.target", "ActiveEnterTimestampMonotonic"))
    assert 0 < ready <= basic, (ready, basic)
    eq("connect to another port", connect_errno(DENIED_PORT + 1),
       errno.ECONNREFUSED)


def test_unit_runs_with_three_capabilities():
    """CAP_SYS_ADMIN, CAP_NET_ADMIN and CAP_CHOWN, nothing else
    (docs/ftagentd.md, "Capabilities")."""
    pid = prop("ftagentd.service", "MainPID")
    with open("/proc/%s/status" % pid) as f:
        caps = dict(line.split(":\t") for line in f if line.startswith("Cap"))
    want = (1 << 21) | (1 << 12) | (1 << 0)  # SYS_ADMIN, NET_ADMIN, CHOWN
    eq("CapEff", int(caps["CapEff"], 16), want)
    eq("CapBnd", int(caps["CapBnd"], 16), want)


def test_event_filesystem_mounted_for_the_host():
    """sys-fs-ftagent.mount mounts it in the host's namespace, not the
    daemon's: the mount outlives the daemon."""
    out = sh("findmnt", "-n", "-o", "FSTYPE", "/sys/fs/ftagent")
    eq("fstype", out.strip(), "ftagentfs")


def test_execs_while_stopped_reach_ftctl_events():
    """systemctl stop, a few hundred execs, systemctl start: all of them
    are in ftctl events; the rule stays in force while it is down."""
    old = prop("ftagentd.service", "MainPID")
    sh("systemctl", "stop", "ftagentd.service")
    eq("state", prop("ftagentd.service", "ActiveState"), "inactive")
    eq("connect while the daemon is stopped", connect_errno(DENIED_PORT),
       errno.EPERM)
    pids = run_trues(N_EXECS)
    sh("systemctl", "start", "ftagentd.service")
    wait_for("the restarted daemon", lambda: active_with_new_pid(old))
    all_execs_seen(pids, "after systemctl stop/start")


def test_execs_while_killed_reach_ftctl_events():
    """kill -9: Restart=on-failure brings it back, and nothing made while
    it was down is lost; the rule stays in force meanwhile."""
    old = prop("ftagentd.service", "MainPID")
    sh("systemctl", "kill", "--signal=KILL", "ftagentd.service")
    eq("connect while the daemon is down", connect_errno(DENIED_PORT),
       errno.EPERM)
    pids = run_trues(N_EXECS)
    wait_for("the daemon restarted by systemd",
             lambda: active_with_new_pid(old))
    all_execs_seen(pids, "after kill -9 and Restart=on-failure")
    eq("connect after the restart", connect_errno(DENIED_PORT), errno.EPERM)


def test_reload_keeps_rule_hits():
    """systemctl reload (SIGHUP) with an unchanged file pushes nothing:
    the rule's hit count goes on from where it was."""
    def hits():
        rules = json.loads(sh("ftctl", "--json", "policy", "show"))["rules"]
        return [r["hits"] for r in rules if r["name"] == "test-denied"][0]
    before = hits()
    assert before >= 3, before
    sh("systemctl", "reload", "ftagentd.service")
    time.sleep(1)
    eq("connect after the reload", connect_errno(DENIED_PORT), errno.EPERM)
    eq("hits after a reload and one more denied connect", hits(), before + 1)


def test_no_loss_counted_across_the_restarts():
    """The restarts above (stop/start, kill -9 and Restart=) lost nothing,
    so docs/metrics.md's "events lost anywhere" alert stays silent: every
    loss kind is 0 in ftctl stats and on the metrics page."""
    st = json.loads(sh("ftctl", "--json", "stats"))
    dropped = st["daemon"]["collector"]["events_dropped"]
    assert dropped and not any(dropped.values()), dropped
    page = urllib.request.urlopen("http://%s/metrics" % METRICS,
                                  timeout=30).read().decode()
    samples = re.findall(r"^ftagent_events_dropped_total\{[^}]*\} (\S+)$",
                         page, re.M)
    assert samples, page[:2000]
    eq("ftagent_events_dropped_total, summed",
       sum(float(v) for v in samples), 0.0)


TESTS = [
    test_policy_in_force_before_ordinary_services,
    test_unit_runs_with_three_capabilities,
    test_event_filesystem_mounted_for_the_host,
    test_execs_while_stopped_reach_ftctl_events,
    test_execs_while_killed_reach_ftctl_events,
    test_reload_keeps_rule_hits,
    test_no_loss_counted_across_the_restarts,
]


def main():
    phase = os.environ.get("FTG_PHASE")
    if phase == "prepare":
        prepare()
        return 0
    if phase != "run":
        print("unit_boot.py: run me through tools/guest/run-guest --systemd",
              file=sys.stderr)
        return 2
    print("1..%d" % len(TESTS))
    failed = 0
    for i, t in enumerate(TESTS, 1):
        try:
            t()
            print("ok %d - %s" % (i, t.__name__))
        except Exception:
            failed += 1
            print("not ok %d - %s" % (i, t.__name__))
            for line in traceback.format_exc().splitlines():
                print("# " + line)
    if failed:
        print("# ftagentd's journal:")
        log = subprocess.run(["journalctl", "-b", "-u", "ftagentd",
                              "--no-pager", "-n", "60"],
                             capture_output=True, text=True).stdout
        for line in log.splitlines():
            print("# " + line)
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
