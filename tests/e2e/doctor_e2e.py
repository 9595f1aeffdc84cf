#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ftctl doctor end to end, in the test guest, with the module loaded.

A healthy guest must come out clean (exit 0, no check failed); then each
fault is planted, ftctl doctor must name it under the right check with a
fix line, and exit 1; then the fault is taken away and the check must be
ok again, so a check that always fails (or never does) cannot pass.

What "healthy" means here: the guest loads the module from the build
directory, not through DKMS, and modinfo cannot find it there, so the
dkms and signature checks say "warn" (docs/ftctl.md: warnings do not
make doctor exit non-zero). Everything else must be "ok".

Lockdown is not planted (it cannot be lifted in a boot and the harness
runs its own lockdown phase): the test checks doctor reports the level
the kernel shows. Prints TAP.

usage: doctor_e2e.py BUILD_DIR
"""
import errno
import json
import os
import signal
import subprocess
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import daemon_e2e as e2e  # noqa: E402  (the helpers and the daemon)

FTCTL = e2e.FTCTL
FTAGENT_KO = os.environ.get("FTAGENT_KO", "")
HOLDER_KO = os.environ.get("FTAGENT_HOLDER_KO", "")
GROUP_ID = 4242  # the ftagent group this test adds to /etc/group
FS = "/sys/fs/ftagent"
TRACEFS = "/sys/kernel/tracing"
HOLDER_SYMBOL = "__x64_sys_pread64"
GOOD_CONF = "[agent]\nmode = standard\n"


def doctor(*prefix):
    """Run ftctl --json doctor (after @prefix, e.g. setpriv): (rc, findings)."""
    r = subprocess.run([*prefix, FTCTL, "--json", "doctor"],
                       capture_output=True, text=True, timeout=300)
    try:
        findings = json.loads(r.stdout)
    except ValueError:
        raise AssertionError("doctor printed no JSON (rc %d): %r %r" %
                             (r.returncode, r.stdout, r.stderr))
    for f in findings:
        assert f["status"] in ("ok", "warn", "fail"), f
        # Every finding that is not ok says what to do.
        assert f["status"] == "ok" or f["fix"], f
    return r.returncode, findings


def by_status(findings, status):
    return sorted({f["check"] for f in findings if f["status"] == status})


def of(findings, check):
    return [f for f in findings if f["check"] == check]


def expect_found(findings, rc, check, words=()):
    """@check failed, naming each of @words, and doctor exited 1."""
    bad = [f for f in of(findings, check) if f["status"] == "fail"]
    assert bad, "%s: not failed: %s" % (check, json.dumps(findings, indent=1))
    for w in words:
        assert any(w in f["what"] for f in bad), (w, bad)
    e2e.eq("doctor's exit status with %s failing" % check, rc, 1)


def expect_clean(what):
    """doctor exits 0 with no failed check (warnings allowed: dkms...)."""
    rc, findings = doctor()
    assert not by_status(findings, "fail"), (what, json.dumps(findings,
                                                               indent=1))
    e2e.eq("doctor's exit status, " + what, rc, 0)
    return findings


def proc_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        return str(e)


def stop_daemon(d):
    """SIGTERM, as Daemon.stop(); a daemon that does not stop is shown
    (state, wait channel, kernel stacks, log), killed, and a failure."""
    if not d.proc or d.proc.poll() is not None:
        return
    d.notifications()  # a full notify queue would block its STOPPING=1
    d.proc.send_signal(signal.SIGTERM)
    try:
        rc = d.proc.wait(timeout=e2e.WAIT_S)
    except subprocess.TimeoutExpired:
        pid = d.proc.pid
        for task in sorted(os.listdir("/proc/%d/task" % pid)):
            base = "/proc/%d/task/%s/" % (pid, task)
            e2e.log("task %s: %s wchan %s syscall %s\n%s" % (
                task,
                [ln for ln in proc_text(base + "status").splitlines()
                 if ln.startswith("State")],
                proc_text(base + "wchan"), proc_text(base + "syscall"),
                proc_text(base + "stack")))
        d.proc.kill()
        d.proc.wait()
        raise AssertionError("ftagentd did not stop on SIGTERM in %d s" %
                             e2e.WAIT_S)
    if rc != 0:
        raise AssertionError("ftagentd stopped with status %d" % rc)


def start_daemon(d):
    """Daemon.start(), after reading what earlier runs sent to the fixture's
    NOTIFY_SOCKET: nobody else reads it here, and a daemon blocks on a
    full queue (10 datagrams) before it says READY=1."""
    d.notifications()
    d.start()


def restart_daemon(d, conf):
    stop_daemon(d)
    with open(e2e.CONF, "w") as f:
        f.write(conf)
    start_daemon(d)


def unload_module(d):
    stop_daemon(d)
    while subprocess.run(["umount", FS], capture_output=True).returncode == 0:
        pass
    subprocess.run(["rmmod", "ftagent"], check=True)


def load_module(d):
    subprocess.run(["insmod", FTAGENT_KO, "hooks=ftrace"], check=True)
    start_daemon(d)


# ---------------------------------------------------------------- tests

def test_healthy_host_comes_out_clean(d):
    findings = expect_clean("healthy guest")
    for check in ("module", "daemon", "socket", "caller", "ftrace_enabled",
                  "hooks", "return_path", "owners", "loss", "tables",
                  "lockdown", "secure_boot"):
        e2e.eq(check, [f["status"] for f in of(findings, check)], ["ok"])
    # Loaded from a path: said, not failed.
    assert "not installed through DKMS" in of(findings, "dkms")[0]["what"]
    # Every hook was proven to fire, by count.
    assert "each fired on a test call" in of(findings, "hooks")[0]["what"]
    assert "syscall exit work" in of(findings, "return_path")[0]["what"]
    # The text output says the same in one line at the end.
    out = subprocess.run([FTCTL, "doctor"], capture_output=True, text=True)
    e2e.eq("text exit status", out.returncode, 0)
    assert out.stdout.splitlines()[-1].startswith("healthy:"), out.stdout
    for line in out.stdout.splitlines():
        assert len(line) <= 80, line


def test_lockdown_level_is_the_kernels(d):
    with open("/sys/kernel/security/lockdown") as f:
        level = f.read().split("[")[1].split("]")[0]
    _, findings = doctor()
    f = of(findings, "lockdown")[0]
    e2e.eq("lockdown status", f["status"], "ok")
    assert ("lockdown: " + level) in f["what"], (level, f)


def test_daemon_stopped_is_found(d):
    stop_daemon(d)
    try:
        rc, findings = doctor()
        expect_found(findings, rc, "daemon", ["not running"])
        # Loss and tables are then unknown: said, not claimed clean.
        e2e.eq("loss without the daemon",
               [f["status"] for f in of(findings, "loss")], ["warn"])
    finally:
        start_daemon(d)
    expect_clean("daemon started again")


def test_socket_with_wrong_mode_or_group_is_found(d):
    try:
        os.chmod(e2e.SOCK, 0o666)
        rc, findings = doctor()
        expect_found(findings, rc, "socket", ["0666"])
        os.chmod(e2e.SOCK, 0o660)
        os.chown(e2e.SOCK, 0, 0)
        rc, findings = doctor()
        expect_found(findings, rc, "socket", ["gid 0"])
    finally:
        os.chown(e2e.SOCK, 0, GROUP_ID)
        os.chmod(e2e.SOCK, 0o660)
    expect_clean("socket root:ftagent 0660 again")


def test_caller_not_in_the_group_is_found(d):
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    rc, findings = doctor(*nobody)
    expect_found(findings, rc, "caller", ["not in the socket's group"])
    # What nobody may not look at is "not checked", never a false alarm.
    e2e.eq("failed checks for nobody", by_status(findings, "fail"),
           ["caller"])
    # The same user in the group: let in, the hooks proven through the
    # daemon's sample of the module.
    member = ["setpriv", "--reuid=65534", "--regid=65534",
              "--groups=%d" % GROUP_ID]
    rc, findings = doctor(*member)
    e2e.eq("caller, as a member", [f["status"] for f in
                                    of(findings, "caller")], ["ok"])
    e2e.eq("hooks, as a member", [f["status"] for f in
                                   of(findings, "hooks")], ["ok"])
    # The return path from the daemon's view of the module's status.
    expect_return_path(findings, "ok", "syscall exit work")
    e2e.eq("owners, as a member", [f["status"] for f in
                                    of(findings, "owners")], ["warn"])
    assert "needs root" in of(findings, "owners")[0]["what"], findings
    e2e.eq("exit status, as a member", rc, 0)


def sysctl_ftrace_enabled(value):
    with open("/proc/sys/kernel/ftrace_enabled", "w") as f:
        f.write(value)


def test_ftrace_enabled_0_is_found(d):
    """While the ftrace set returns through the exit work (its default),
    the kernel refuses kernel.ftrace_enabled=0: the module's hooks on the
    tracepoint register functions are PERMANENT. The sysctl can still be
    0 when the module loads (the set then settles through
    TIF_NOTIFY_RESUME, and nothing fires until it is 1 again): doctor
    and selfcheck must find that."""
    try:
        sysctl_ftrace_enabled("0")
        refused = None
    except OSError as e:
        refused = e.errno
    if refused is None:
        sysctl_ftrace_enabled("1")
    e2e.eq("kernel.ftrace_enabled=0 while the exit work is on", refused,
           errno.EBUSY)
    unload_module(d)
    try:
        sysctl_ftrace_enabled("0")
        load_module(d)
        rc, findings = doctor()
        expect_found(findings, rc, "ftrace_enabled",
                     ["kernel.ftrace_enabled=0"])
        # And the hooks are seen not to fire, by their own counts.
        expect_found(findings, rc, "hooks", ["did not fire"])
        # The set is on the settle, not the exit work: said, with the
        # sysctl to set first.
        expect_return_path(findings, "warn", "kernel.ftrace_enabled=0",
                           "sysctl kernel.ftrace_enabled=1")
        # ftctl selfcheck too: no hook fires.
        sc = subprocess.run([FTCTL, "selfcheck"], capture_output=True,
                            text=True)
        e2e.eq("selfcheck exit status with ftrace off", sc.returncode, 1)
        assert "SELF-CHECK FAILED" in sc.stdout, sc.stdout
        assert "SILENT" in sc.stdout, sc.stdout
    finally:
        sysctl_ftrace_enabled("1")
    findings = expect_clean("ftrace_enabled=1 again")
    # Counting again, but still on the fallback until the next attach.
    expect_return_path(findings, "warn", "fell back", "modprobe -r ftagent")
    sc = subprocess.run([FTCTL, "selfcheck"], capture_output=True, text=True)
    e2e.eq("selfcheck exit status with ftrace on", sc.returncode, 0)
    # Back on the exit work for the tests after this one.
    unload_module(d)
    load_module(d)
    findings = expect_clean("reloaded on the exit work")
    expect_return_path(findings, "ok", "syscall exit work")


def expect_return_path(findings, status, words, fix=None):
    rp = of(findings, "return_path")
    e2e.eq("return_path findings", [f["status"] for f in rp], [status])
    assert words in rp[0]["what"], rp
    if fix:
        assert fix in rp[0]["fix"], rp


def test_exit_work_0_asked_for_is_not_a_warning(d):
    """exit_work=0 is the operator's choice: return_path is ok and says
    so; the kprobe set has no exit work and is ok too. (The daemon
    applies its config's hook set: kprobe is asked of it there.)"""
    try:
        for params, hooks, words in (
                (["exit_work=0"], "ftrace", "exit_work=0 was asked"),
                (["hooks=kprobe"], "kprobe", "kretprobe")):
            unload_module(d)
            subprocess.run(["insmod", FTAGENT_KO, *params], check=True)
            with open(e2e.CONF, "w") as f:
                f.write(GOOD_CONF + "hooks = %s\n" % hooks)
            start_daemon(d)
            findings = expect_clean(" ".join(params))
            expect_return_path(findings, "ok", words)
    finally:
        unload_module(d)
        with open(e2e.CONF, "w") as f:
            f.write(GOOD_CONF)
        load_module(d)
    expect_return_path(expect_clean("reloaded on the exit work"), "ok",
                       "syscall exit work")


def insmod_holder(*params):
    subprocess.run(["insmod", HOLDER_KO, "symbol=" + HOLDER_SYMBOL,
                    *params], check=True)


def rmmod_holder():
    subprocess.run(["rmmod", "ftagent_test_holder"], check=True)


def test_a_livepatch_like_owner_is_found(d):
    """An IPMODIFY user (as a livepatch) on a function ftagent hooks: a
    warning naming it (ftagent shares the function and still counts, so
    nothing needs doing: doctor exits 0)."""
    assert HOLDER_KO, "FTAGENT_HOLDER_KO is not set"
    insmod_holder("ipmodify=1")
    try:
        rc, findings = doctor()
        owners = of(findings, "owners")
        e2e.eq("owners", [f["status"] for f in owners], ["warn"])
        assert HOLDER_SYMBOL in owners[0]["what"], owners
        assert "IPMODIFY" in owners[0]["what"], owners
        e2e.eq("exit status with a livepatch-like owner", rc, 0)
    finally:
        rmmod_holder()
    _, findings = doctor()
    e2e.eq("owners once it is gone",
           [f["status"] for f in of(findings, "owners")], ["ok"])


def test_a_direct_call_owner_is_found(d):
    """Another direct caller (as a BPF trampoline) holds a function before
    ftagent loads: ftagent runs without direct calls, doctor names the
    owner and fails."""
    assert HOLDER_KO and FTAGENT_KO, "FTAGENT_HOLDER_KO/FTAGENT_KO unset"
    unload_module(d)
    try:
        insmod_holder()
        try:
            load_module(d)
            rc, findings = doctor()
            expect_found(findings, rc, "owners",
                         [HOLDER_SYMBOL, "ftagent_test_holder"])
            unload_module(d)
        finally:
            rmmod_holder()
    finally:
        if subprocess.run(["grep", "-q", "^ftagent ", "/proc/modules"]
                          ).returncode != 0:
            load_module(d)
    expect_clean("the direct call back with ftagent")


def test_module_not_loaded_is_found(d):
    unload_module(d)
    try:
        rc, findings = doctor()
        expect_found(findings, rc, "module", ["not loaded"])
        expect_found(findings, rc, "daemon", ["not running"])
        e2e.eq("hooks without the module",
               [f["status"] for f in of(findings, "hooks")], ["warn"])
        e2e.eq("return_path without the module",
               [f["status"] for f in of(findings, "return_path")], ["warn"])
    finally:
        load_module(d)
    expect_clean("module loaded again")


def possible_cpus():
    with open("/sys/devices/system/cpu/possible") as f:
        n = 0
        for part in f.read().strip().split(","):
            lo, _, hi = part.partition("-")
            n += int(hi or lo) - int(lo) + 1
        return n


def test_event_loss_is_found(d):
    """The smallest event buffer, a daemon that stalls (SIGSTOP) and a
    burst of opens on one CPU: records are lost in the kernel, and doctor
    counts them in the last hour once the daemon runs again."""
    restart_daemon(d, GOOD_CONF + "ring_buffer_size = %d\n" %
                   (possible_cpus() * 65536))
    try:
        _, findings = doctor()
        e2e.eq("loss before the burst",
               [f["status"] for f in of(findings, "loss")], ["ok"])
        path = os.path.join(e2e.WORK, "burst")
        open(path, "w").close()
        d.proc.send_signal(signal.SIGSTOP)
        try:
            pid = os.fork()
            if pid == 0:
                os.sched_setaffinity(0, {os.sched_getaffinity(0).pop()})
                for _ in range(20000):
                    os.close(os.open(path, os.O_RDONLY))
                os._exit(0)
            os.waitpid(pid, 0)
        finally:
            d.proc.send_signal(signal.SIGCONT)

        def lost():
            rc, findings = doctor()
            return (rc, findings) if any(
                f["status"] == "fail" for f in of(findings, "loss")) else None
        rc, findings = e2e.wait_for("event loss in doctor", lost)
        expect_found(findings, rc, "loss", ["lost in the last"])
    finally:
        restart_daemon(d, GOOD_CONF)
    expect_clean("a new daemon with the default buffer")


def test_table_full_is_found(d):
    restart_daemon(d, GOOD_CONF + "\n[limits]\nprocesses = 16\n")
    try:
        for _ in range(40):
            subprocess.run(["true"], check=True)

        def full():
            rc, findings = doctor()
            return (rc, findings) if any(
                f["status"] == "fail" for f in of(findings, "tables")) \
                else None
        rc, findings = e2e.wait_for("the processes table full", full)
        expect_found(findings, rc, "tables", ["processes table is full"])
    finally:
        restart_daemon(d, GOOD_CONF)
    expect_clean("default table sizes again")


TESTS = [
    test_healthy_host_comes_out_clean,
    test_lockdown_level_is_the_kernels,
    test_daemon_stopped_is_found,
    test_socket_with_wrong_mode_or_group_is_found,
    test_caller_not_in_the_group_is_found,
    test_ftrace_enabled_0_is_found,
    test_exit_work_0_asked_for_is_not_a_warning,
    test_a_livepatch_like_owner_is_found,
    test_a_direct_call_owner_is_found,
    test_module_not_loaded_is_found,
    test_table_full_is_found,
    test_event_loss_is_found,
]


def setup():
    """An ftagent group (the daemon makes its socket root:ftagent 0660),
    tracefs mounted (as systemd does on a real host), a WORK directory
    other users may pass through."""
    group = os.path.join(e2e.WORK, "group")
    with open("/etc/group") as f:
        text = f.read()
    with open(group, "w") as f:
        f.write(text + "ftagent:x:%d:\n" % GROUP_ID)
    subprocess.run(["mount", "--bind", group, "/etc/group"], check=True)
    if not os.path.exists(os.path.join(TRACEFS, "enabled_functions")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                       check=True)
    os.chmod(e2e.WORK, 0o711)
    with open(e2e.CONF, "w") as f:
        f.write(GOOD_CONF)


def main():
    try:
        setup()
    except Exception:
        e2e.log(traceback.format_exc())
        print("1..%d" % len(TESTS))
        for i, t in enumerate(TESTS, 1):
            print("not ok %d - %s" % (i, t.__name__))
        return 1
    d = e2e.Daemon()
    rc = e2e.run_tap(TESTS, d, start=lambda: start_daemon(d),
                     stop=lambda: stop_daemon(d))
    subprocess.run(["umount", "/etc/group"])
    return rc


if __name__ == "__main__":
    sys.exit(main())
