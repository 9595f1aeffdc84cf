#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ftagentd across stops, crashes and restarts, in the test guest, with the
module loaded: nothing done while no daemon runs is lost.

- Events: execs made while ftagentd is stopped (SIGTERM: it unmounts its
  event filesystem), killed (SIGKILL), or killed while running in a mount
  namespace of its own (as under the shipped unit's ProtectSystem=) are all
  in `ftctl events` after the next start.
- Counters: `ftctl top --once` with no daemon answering consumes nothing:
  bytes written meanwhile reach the restarted daemon, exactly; so do the
  bytes of a writer that keeps writing while the daemon is killed with
  SIGKILL and restarted 50 times.
- One daemon at a time: a second ftagentd on the same state directory exits
  5 and the first keeps serving.

Prints TAP. usage: restart_e2e.py BUILD_DIR
"""
import errno
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import daemon_e2e as e2e  # noqa: E402  (the helpers and the daemon)

N_EXECS = 300


def run_trues(n):
    """fork + exec /bin/true @n times; their pids."""
    pids = []
    for _ in range(n):
        p = subprocess.Popen(["/bin/true"])
        e2e.eq("true's status", p.wait(), 0)
        pids.append(p.pid)
    return pids


def exec_pids():
    evs = e2e.ftctl_json("events", "--since", "1h", "--type", "exec",
                         "--limit", "100000")
    return {e["pid"] for e in evs}


def all_execs_seen(pids, how):
    seen = exec_pids()
    missing = [p for p in pids if p not in seen]
    if missing:
        raise AssertionError("%s: %d of %d execs missing from ftctl events "
                             "(first: %r)" % (how, len(missing), len(pids),
                                              missing[:5]))


class CmdDaemon(e2e.Daemon):
    """ftagentd started by @cmd. Without NOTIFY_SOCKET: nobody here reads
    the notifications, and a full datagram queue would block the daemon's
    sd_notify send (systemd always reads it; daemon_e2e tests it)."""

    def __init__(self, cmd):
        self.proc = None
        self.cmd = cmd

    def start(self):
        self.out = open(os.path.join(e2e.WORK, "ftagentd.log"), "a")
        env = dict(os.environ)
        env.pop("NOTIFY_SOCKET", None)
        self.proc = subprocess.Popen(self.cmd, stdout=self.out,
                                     stderr=self.out, env=env)
        e2e.wait_for("the daemon's answer", self._answers)

    def _answers(self):
        if self.proc.poll() is not None:
            raise AssertionError("ftagentd exited with %d: %s" % (
                self.proc.returncode, self.log_text()))
        try:
            return e2e.api({"cmd": "stats"})["ok"]
        except OSError:
            return False


def test_execs_while_stopped_reach_ftctl_events(d):
    d.stop()
    pids = run_trues(N_EXECS)
    d.start()
    all_execs_seen(pids, "after SIGTERM")


def test_execs_while_killed_reach_ftctl_events(d):
    d.kill9()
    pids = run_trues(N_EXECS)
    d.start()
    all_execs_seen(pids, "after SIGKILL")


def test_execs_while_a_namespaced_daemon_is_down_reach_ftctl_events(d):
    d.stop()
    # As systemd runs a unit with ProtectSystem=/PrivateTmp=: its mount of
    # the event filesystem lives in its own namespace.
    ns = CmdDaemon(["unshare", "--mount", "--propagation", "private",
                       e2e.FTAGENTD, "-c", e2e.CONF, "--socket", e2e.SOCK,
                       "--state-dir", e2e.STATE])
    ns.start()
    # Killed: no unmount of its own; its namespace, and the mount in it,
    # go with it.
    ns.kill9()
    pids = run_trues(N_EXECS)
    ns.start()
    try:
        all_execs_seen(pids, "after a kill in its own mount namespace")
    finally:
        ns.stop()
        d.start()


def test_top_once_without_the_daemon_consumes_nothing(d):
    size = 64 * 1024 * 48
    path = os.path.join(e2e.WORK, "top-once.out")
    d.kill9()
    p = subprocess.Popen(["dd", "if=/dev/zero", "of=" + path, "bs=64k",
                          "count=48", "status=none"])
    e2e.eq("dd status", p.wait(), 0)
    for _ in range(3):
        r = subprocess.run([e2e.FTCTL, "top", "--once"], capture_output=True,
                           text=True)
        e2e.eq("ftctl top --once without the daemon: status", r.returncode,
               0)
        assert "left for the daemon" in r.stderr, r.stderr
    d.start()
    row = e2e.wait_for("dd's bytes after the restart", lambda: (
        lambda r: r if r and r["file_out_bytes"] >= size else None)(
            e2e.api_top_row(p.pid)))
    e2e.eq("dd file bytes written, as the restarted daemon counts them",
           row["file_out_bytes"], size)


KILLS = 50


def test_fifty_kill9s_under_traffic_lose_no_byte(d):
    """A writer keeps writing while the daemon is killed with SIGKILL and
    started again 50 times: every byte it wrote is counted, exactly, and
    the daemon still answers."""
    chunk = 64 * 1024
    path = os.path.join(e2e.WORK, "kills.out")
    stop_rd, stop_wr = os.pipe()
    res_rd, res_wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(stop_wr)
        os.close(res_rd)
        os.set_blocking(stop_rd, False)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        buf, written = b"k" * chunk, 0
        while True:
            # Over the same 64 KiB: counted bytes, not a guest-filling file.
            os.lseek(fd, 0, os.SEEK_SET)
            written += os.write(fd, buf)
            try:
                if os.read(stop_rd, 1):
                    break
            except BlockingIOError:
                pass
            time.sleep(0.005)
        os.close(fd)
        with open("/proc/self/io") as io:  # the kernel's own count
            wchar = int(re.search(r"^wchar: (\d+)", io.read(), re.M)[1])
        os.write(res_wr, b"%d %d\n" % (written, wchar))
        os._exit(0)
    os.close(stop_rd)
    os.close(res_wr)
    try:
        for i in range(KILLS):
            d.kill9()
            d.start()
    finally:
        os.write(stop_wr, b"s")
        os.close(stop_wr)
        written, wchar = map(int, os.read(res_rd, 64).split())
        os.close(res_rd)
        e2e.eq("writer status", os.waitpid(pid, 0)[1], 0)
    e2e.eq("the writer's wchar in /proc/PID/io", wchar, written)
    assert written >= KILLS * chunk, written  # it wrote throughout
    row = e2e.wait_for("the writer's bytes after %d kills" % KILLS, lambda: (
        lambda r: r if r and r["file_out_bytes"] >= written else None)(
            e2e.api_top_row(pid)))
    e2e.eq("bytes written across %d kill -9s" % KILLS,
           row["file_out_bytes"], written)
    e2e.log("%d kill -9s and restarts, %d bytes written meanwhile, all "
            "counted" % (KILLS, written))


def test_full_disk_is_visible_and_loses_no_count(d):
    """State directory and event_output on a full tmpfs: every failure is
    in ftctl stats and on the metrics page, no generation is acknowledged
    unjournaled (a kill -9 then loses no byte), and events that could not
    be written are counted as lost."""
    full = os.path.join(e2e.WORK, "full")
    os.makedirs(full)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full],
                   check=True)
    conf = os.path.join(e2e.WORK, "full.conf")
    with open(conf, "w") as f:
        f.write("[agent]\nmode = standard\nevent_output = %s\n\n"
                "[metrics]\nlisten = 127.0.0.1:9466\n"
                % os.path.join(full, "events.jsonl"))
    fd = CmdDaemon([e2e.FTAGENTD, "-c", conf, "--socket", e2e.SOCK,
                       "--state-dir", os.path.join(full, "state")])
    filler = os.path.join(full, "filler")
    d.stop()
    try:
        fd.start()
        subprocess.run(["dd", "if=/dev/zero", "of=" + filler, "bs=64k",
                        "status=none"], stderr=subprocess.DEVNULL)
        size = 64 * 1024 * 32
        p = subprocess.Popen(["dd", "if=/dev/zero",
                              "of=" + os.path.join(e2e.WORK, "full-dd.out"),
                              "bs=64k", "count=32", "status=none"])
        e2e.eq("dd status", p.wait(), 0)
        e2e.exit_record(p.pid)  # in the event log, though not journaled

        def failures():
            st = e2e.ftctl_json("stats")["daemon"]["daemon"]
            ok = (st["state"]["journal_errors"] > 0 and
                  st["event_output"]["lost"] > 0)
            return st if ok else None
        st = e2e.wait_for("journal errors and lost event_output", failures)
        assert "No space left" in st["state"]["error"], st["state"]
        assert "No space left" in st["event_output"]["error"], st
        text = subprocess.run([e2e.FTCTL, "stats"], capture_output=True,
                              text=True).stdout
        assert "journal errors" in text and "lost" in text, text
        with urllib.request.urlopen("http://127.0.0.1:9466/metrics") as r:
            page = r.read().decode()
        for line in page.splitlines():
            if line.startswith('ftagent_write_errors_total{target="journal"}'):
                assert int(line.split()[-1]) > 0, line
                break
        else:
            raise AssertionError("no journal write errors on the page")
        # Killed while nothing could be journaled; then space comes back.
        fd.kill9()
        os.unlink(filler)
        fd.start()
        row = e2e.wait_for("dd's bytes after the restart", lambda: (
            lambda r: r if r and r["file_out_bytes"] >= size else None)(
                e2e.api_top_row(p.pid)))
        e2e.eq("dd file bytes written, after a full disk and kill -9",
               row["file_out_bytes"], size)
    finally:
        if fd.proc and fd.proc.poll() is None:
            fd.stop()
        subprocess.run(["umount", full])
        d.start()


def connect(port):
    s = socket.socket()
    try:
        return s.connect_ex(("127.0.0.1", port))
    finally:
        s.close()


def budget(name):
    b = [x for x in e2e.ftctl_json("budget", "show") if x["name"] == name]
    assert b, e2e.ftctl_json("budget", "show")
    return b[0]


def rule_hits(name):
    pol = e2e.ftctl_json("policy", "show")
    r = [x for x in pol["rules"] if x["name"] == name]
    assert r, pol
    return r[0]["hits"]


def test_gate_survives_reload_and_restart(d):
    """Budget usage and rule hits survive a reload that does not touch
    them; the set in force keeps enforcing while the daemon is down and
    keeps its usage across the restart."""
    ok_ls, no_ls = socket.socket(), socket.socket()
    for s in (ok_ls, no_ls):
        s.bind(("127.0.0.1", 0))
        s.listen(16)
    ok, no = ok_ls.getsockname()[1], no_ls.getsockname()[1]
    with open(e2e.CONF) as f:
        good = f.read()
    gated = good + ("\n[budget.e2e-keep]\nmetric = connects\nlimit = 3\n"
                    "window = 1h\nsubtree = %d\n"
                    "\n[policy.e2e-keep-deny]\nops = connect\n"
                    "action = deny\nport = %d\n" % (os.getpid(), no))
    e2e.reload_with(d, gated)
    try:
        e2e.eq("two connects", [connect(ok), connect(ok)], [0, 0])
        e2e.eq("denied port", connect(no), errno.EPERM)
        e2e.eq("used", budget("e2e-keep")["used"], 2)
        e2e.eq("hits", rule_hits("e2e-keep-deny"), 1)
        # A reload that changes something else.
        e2e.reload_with(d, gated.replace("[agent]\n",
                                     "[agent]\nevent_log_size = 4MB\n", 1))
        e2e.eq("used after an unrelated reload", budget("e2e-keep")["used"],
               2)
        e2e.eq("hits after an unrelated reload", rule_hits("e2e-keep-deny"),
               1)
        # While the daemon is down, the set in force still decides.
        d.stop()
        e2e.eq("denied port, no daemon", connect(no), errno.EPERM)
        e2e.eq("budget, no daemon", [connect(ok), connect(ok)],
               [0, errno.EDQUOT])
        d.start()
        b = budget("e2e-keep")
        e2e.eq("used after the restart", (b["used"], b["denied"]), (3, 1))
        e2e.eq("hits after the restart", rule_hits("e2e-keep-deny"), 2)
        e2e.eq("still denied", connect(no), errno.EPERM)
    finally:
        if d.proc.poll() is not None:
            d.start()
        e2e.reload_with(d, good)
        ok_ls.close()
        no_ls.close()
    e2e.eq("budgets after taking them out", e2e.ftctl_json("budget", "show"),
           [])


def test_sigusr1_reopens_event_output_only(d):
    """Log rotation: the file moved away, SIGUSR1, new events go to a new
    file at the configured path; the config is not re-read."""
    moved = e2e.EVENTS + ".1"
    st0 = e2e.api({"cmd": "stats"})["daemon"]
    os.rename(e2e.EVENTS, moved)
    d.proc.send_signal(signal.SIGUSR1)
    e2e.wait_for("the reopen", lambda: e2e.api({"cmd": "stats"})["daemon"][
        "reopens"] > st0["reopens"])
    pid = run_trues(1)[0]

    def in_new_file():
        if not os.path.exists(e2e.EVENTS):
            return None
        with open(e2e.EVENTS) as f:
            return [ln for ln in f if '"pid":%d' % pid in ln.replace(" ", "")]
    e2e.wait_for("true's exec in the reopened file", in_new_file)
    e2e.eq("reloads", e2e.api({"cmd": "stats"})["daemon"]["reloads"],
           st0["reloads"])
    os.unlink(moved)


def test_policy_load_pushes_budgets_too(d):
    """ftctl policy load FILE puts the file's budgets in force with its
    rules; a file without either takes both away."""
    path = os.path.join(e2e.WORK, "load.conf")
    with open(path, "w") as f:
        f.write("[policy.e2e-load-rule]\nops = connect\naction = audit\n"
                "port = 9\n\n[budget.e2e-load-budget]\nmetric = connects\n"
                "limit = 1000\nwindow = 1h\nuid = 4242\n")
    r = subprocess.run([e2e.FTCTL, "policy", "load", path],
                       capture_output=True, text=True)
    e2e.eq("policy load status", r.returncode, 0)
    try:
        assert "1 rules" in r.stdout and "1 budgets" in r.stdout, r.stdout
        rule_hits("e2e-load-rule")
        e2e.eq("budget limit", budget("e2e-load-budget")["limit"], 1000)
    finally:
        with open(path, "w") as f:
            f.write("[agent]\nmode = standard\n")
        r = subprocess.run([e2e.FTCTL, "policy", "load", path],
                           capture_output=True, text=True)
        e2e.eq("empty policy load status", r.returncode, 0)
    e2e.eq("budgets after an empty load", e2e.ftctl_json("budget", "show"),
           [])


def test_escape_sequences_in_names_are_not_passed_to_the_terminal(d):
    """A process that names itself with an OSC and a C1 CSI sequence: the
    text output of ftctl top and ftctl events shows '?' instead."""
    evil = b"\x1b]0;x\x07\xc2\x9b2J"
    pid = os.fork()
    if pid == 0:
        with open("/proc/self/comm", "wb") as f:
            f.write(evil)
        with open(os.path.join(e2e.WORK, "evil.out"), "wb") as f:
            f.write(b"e" * 4096)
        os._exit(0)
    os.waitpid(pid, 0)
    e2e.exit_record(pid)
    e2e.wait_for("the named process's row", lambda: e2e.api_top_row(pid))
    for args in (["top", "--once", "--limit", "100000"],
                 ["events", "--since", "5m", "--pid", str(pid)]):
        out = subprocess.run([e2e.FTCTL, *args], capture_output=True,
                             check=True).stdout
        lines = [ln for ln in out.splitlines() if b" %d " % pid in ln]
        # Records from before the rename carry the old name.
        assert [ln for ln in lines if b"?]0;x??" in ln], (args, lines)
        for bad in (b"\x1b", b"\x07", b"\x9b"):
            assert bad not in out, (args, out[-2000:])


def connect_from_cgroup(cgroup, port):
    """connect() from a child moved into @cgroup: its errno (0: connected)."""
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                f.write(str(os.getpid()))
            os.write(wr, str(connect(port)).encode())
        finally:
            os._exit(0)
    os.close(wr)
    out = os.read(rd, 64)
    os.close(rd)
    os.waitpid(pid, 0)
    return int(out)


def test_cgroup_rules_follow_the_path(d):
    """A rule naming a cgroup by path: accepted while the cgroup does not
    exist (the daemon says it waits for it), in force once it is made, and
    still in force after it is removed and made anew (a new id)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    port = ls.getsockname()[1]
    cg = os.path.join(e2e.WORK, "cg")
    os.makedirs(cg)
    subprocess.run(["mount", "-t", "cgroup2", "none", cg], check=True)
    svc = os.path.join(cg, "e2e-svc")
    with open(e2e.CONF) as f:
        good = f.read()

    def rule_ids():
        return [r for r in e2e.ftctl_json("policy", "show")["rules"]
                if r["name"] == "e2e-cg"]
    try:
        e2e.reload_with(d, good + "\n[policy.e2e-cg]\nops = connect\n"
                    "action = deny\nport = %d\ncgroup = %s\n" % (port, svc))
        st = e2e.api({"cmd": "stats"})["daemon"]
        assert "e2e-cg" in (st["policy_waiting_for_cgroups"] or ""), st
        e2e.eq("rules in force while the cgroup is missing", rule_ids(), [])
        for round_ in ("made", "made anew"):
            os.mkdir(svc)
            e2e.wait_for("the rule for the %s cgroup" % round_, rule_ids)
            e2e.eq("connect from the %s cgroup" % round_,
                   connect_from_cgroup(svc, port), errno.EPERM)
            e2e.eq("connect from elsewhere", connect(port), 0)
            os.rmdir(svc)
            e2e.wait_for("the rule left out", lambda: not rule_ids())
    finally:
        if os.path.isdir(svc):
            os.rmdir(svc)
        e2e.reload_with(d, good)
        subprocess.run(["umount", cg])
        ls.close()


def test_a_group_member_gets_the_kernel_section(d):
    """A user whose supplementary group is ftagent (not root, not its
    primary group) runs ftctl stats: the daemon lets it in (SO_PEERGROUPS)
    and its KERNEL section comes from the daemon, as the module would give
    it to root."""
    group = os.path.join(e2e.WORK, "group")
    with open("/etc/group") as f:
        text = f.read()
    with open(group, "w") as f:
        f.write(text + "ftagent:x:4242:\n")
    subprocess.run(["mount", "--bind", group, "/etc/group"], check=True)
    os.chmod(e2e.WORK, 0o711)  # mkdtemp's 0700 would keep the user out
    try:
        d.stop()
        d.start()  # reads the group now
        r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534",
                            "--groups=4242", e2e.FTCTL, "stats"],
                           capture_output=True, text=True,
                           env=dict(os.environ, FTAGENT_SOCKET=e2e.SOCK))
        assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
        for want in ("COLLECTOR", "KERNEL", "Module:", "Hooks:",
                     "Event buffer:"):
            assert want in r.stdout, (want, r.stdout, r.stderr)
        assert "ermission" not in r.stderr, r.stderr
    finally:
        subprocess.run(["umount", "/etc/group"])
        d.stop()
        d.start()


def test_a_second_daemon_refuses_to_start(d):
    r = subprocess.run([e2e.FTAGENTD, "-c", e2e.CONF, "--socket", e2e.SOCK,
                        "--state-dir", e2e.STATE], capture_output=True,
                       text=True, timeout=e2e.WAIT_S)
    e2e.eq("second daemon's status", r.returncode, 5)
    assert "another ftagentd (pid %d)" % d.proc.pid in r.stderr, r.stderr
    assert e2e.api({"cmd": "stats"})["ok"]


TESTS = [
    test_execs_while_stopped_reach_ftctl_events,
    test_execs_while_killed_reach_ftctl_events,
    test_execs_while_a_namespaced_daemon_is_down_reach_ftctl_events,
    test_top_once_without_the_daemon_consumes_nothing,
    test_fifty_kill9s_under_traffic_lose_no_byte,
    test_full_disk_is_visible_and_loses_no_count,
    test_gate_survives_reload_and_restart,
    test_sigusr1_reopens_event_output_only,
    test_policy_load_pushes_budgets_too,
    test_escape_sequences_in_names_are_not_passed_to_the_terminal,
    test_cgroup_rules_follow_the_path,
    test_a_group_member_gets_the_kernel_section,
    test_a_second_daemon_refuses_to_start,
]


def main():
    with open(e2e.CONF, "w") as f:
        f.write("[agent]\nmode = standard\nevent_output = %s\n" % e2e.EVENTS)
    only = os.environ.get("RESTART_E2E_ONLY")
    if only:  # a developer's run: the named tests only
        TESTS[:] = [t for t in TESTS if t.__name__ in only.split(",")]
    return e2e.run_tap(TESTS, CmdDaemon([e2e.FTAGENTD, "-c", e2e.CONF,
                                         "--socket", e2e.SOCK,
                                         "--state-dir", e2e.STATE]))


if __name__ == "__main__":
    sys.exit(main())
