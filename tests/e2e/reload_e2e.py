#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The module released (SIGUSR2), unloaded and loaded again 20 times under a
running ftagentd, while a writer keeps writing: the daemon attaches to each
new module and counts exactly the bytes written while it was attached
(docs/ftagentd.md, "Reloading the module under a running daemon").

A program of its own so that tests/run-check can run it on the first
kernel only: the daemon's side is the same on every kernel, and unloading
under traffic is the selftests' job on each. guest-run exports
FTAGENT_MODULE, the module it loaded.

Prints TAP. usage: reload_e2e.py BUILD_DIR
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import daemon_e2e as e2e  # noqa: E402  (the helpers and the daemon)
import restart_e2e  # noqa: E402  (its daemon started by a command)

RELOADS = 20


class LockstepWriter:
    """A child that writes exactly the bytes it is told to, when told, so
    the test knows which of them were written while ftagentd was attached
    to a module. It says it is done with a signal, not a write: its wchar
    is then its file bytes alone."""

    def __init__(self, path):
        self.cmd_rd, self.cmd_wr = os.pipe()
        self.ack_rd, self.ack_wr = os.pipe()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        self.pid = os.fork()
        if self.pid == 0:
            self._serve(path)
        os.close(self.cmd_rd)
        os.close(self.ack_wr)

    def _serve(self, path):
        os.close(self.cmd_wr)
        os.close(self.ack_rd)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        buf, written = b"r" * 65536, 0
        with os.fdopen(self.cmd_rd) as cmds:
            for line in cmds:
                if line.startswith("q"):
                    break
                for _ in range(int(line)):
                    os.lseek(fd, 0, os.SEEK_SET)
                    written += os.write(fd, buf)
                os.kill(os.getppid(), signal.SIGUSR1)
        os.close(fd)
        with open("/proc/self/io") as io:  # the kernel's own count
            wchar = int(re.search(r"^wchar: (\d+)", io.read(), re.M)[1])
        os.write(self.ack_wr, b"%d %d\n" % (written, wchar))
        os._exit(0)

    def write(self, chunks):
        os.write(self.cmd_wr, b"%d\n" % chunks)
        if signal.sigtimedwait({signal.SIGUSR1}, e2e.WAIT_S) is None:
            raise AssertionError("the writer did not write %d chunks in "
                                 "%d s" % (chunks, e2e.WAIT_S))
        return chunks * 65536

    def finish(self):
        os.write(self.cmd_wr, b"q\n")
        os.close(self.cmd_wr)
        written, wchar = map(int, os.read(self.ack_rd, 64).split())
        os.close(self.ack_rd)
        e2e.eq("writer status", os.waitpid(self.pid, 0)[1], 0)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})
        return written, wchar


def daemon_section():
    return e2e.api({"cmd": "stats"})["daemon"]


def wait_link(link, **counts):
    def ready():
        d = daemon_section()
        if d["module_link"] != link:
            return None
        return d if all(d[k] == v for k, v in counts.items()) else None
    return e2e.wait_for("module_link %s %r" % (link, counts), ready)


def rmmod():
    # The release is synchronous (files closed, unmounted), so the
    # module must be free at once: one try, no retry that could hide a
    # hold left behind.
    out = subprocess.run(["rmmod", "ftagent"], capture_output=True,
                         text=True)
    e2e.eq("rmmod ftagent after the release (%s)" % out.stderr.strip(),
           out.returncode, 0)


def insmod():
    out = subprocess.run(["insmod", os.environ["FTAGENT_MODULE"],
                          "hooks=" + os.environ.get("FTAGENT_E2E_HOOKS",
                                                    "ftrace")],
                         capture_output=True, text=True)
    e2e.eq("insmod (%s)" % out.stderr.strip(), out.returncode, 0)


def test_twenty_module_reloads_under_the_daemon(d):
    """The module is released (SIGUSR2), unloaded and loaded again 20
    times while ftagentd runs and a second writer keeps writing: the
    daemon attaches to each new module, every byte written while it was
    attached is counted exactly, what was written while it was detached
    is not (the kernel's wchar is the ground truth for both), and stats
    count the releases, the reloads and the time detached."""
    if "FTAGENT_MODULE" not in os.environ:
        raise AssertionError("FTAGENT_MODULE (the .ko) not set by guest-run")
    w = LockstepWriter(os.path.join(e2e.WORK, "reload.out"))
    st0 = daemon_section()
    stop_rd, stop_wr = os.pipe()
    bg = os.fork()
    if bg == 0:  # traffic: a writer that never waits for the test
        os.close(stop_wr)
        os.set_blocking(stop_rd, False)
        fd = os.open(os.path.join(e2e.WORK, "reload-bg.out"),
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        while True:
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, b"b" * 4096)
            try:
                if os.read(stop_rd, 1):
                    os._exit(0)
            except BlockingIOError:
                pass
            time.sleep(0.002)
    os.close(stop_rd)
    attached = uncounted = 0
    try:
        for i in range(RELOADS):
            attached += w.write(3)
            d.proc.send_signal(signal.SIGUSR2)
            wait_link("released", module_releases=st0["module_releases"] + i + 1)
            uncounted += w.write(2)  # the old module counts; nobody drains
            rmmod()
            uncounted += w.write(1)  # no module at all
            # Seen unloaded by the daemon (or not: a reload between two
            # of its looks is told apart by the family's new id).
            insmod()
            wait_link("attached", module_reloads=st0["module_reloads"] + i + 1)
        attached += w.write(4)
    finally:
        os.write(stop_wr, b"s")
        os.close(stop_wr)
        os.waitpid(bg, 0)
        written, wchar = w.finish()
    e2e.eq("the writer's wchar in /proc/PID/io", wchar, written)
    e2e.eq("bytes written in all", written, attached + uncounted)
    row = e2e.wait_for("the writer's attached bytes", lambda: (
        lambda r: r if r and r["file_out_bytes"] >= attached else None)(
            e2e.api_top_row(w.pid)))
    e2e.eq("bytes counted: those written while attached",
           row["file_out_bytes"], attached)
    st = daemon_section()
    e2e.eq("releases", st["module_releases"] - st0["module_releases"],
           RELOADS)
    e2e.eq("reloads", st["module_reloads"] - st0["module_reloads"], RELOADS)
    e2e.eq("attaches", st["module_attaches"] - st0["module_attaches"],
           RELOADS)
    assert st["module_detached_seconds"] > st0["module_detached_seconds"], st
    text = subprocess.run([e2e.FTCTL, "stats"], capture_output=True,
                          text=True).stdout
    assert re.search(r"Module link: +attached, %d releases, %d reloads" % (
        st["module_releases"], st["module_reloads"]), text), text
    e2e.log("%d reloads: %d bytes counted while attached, %d written while "
            "detached not counted, as /proc/PID/io says"
            % (RELOADS, attached, uncounted))



def main():
    with open(e2e.CONF, "w") as f:
        f.write("[agent]\nmode = standard\n")
    return e2e.run_tap([test_twenty_module_reloads_under_the_daemon],
                       restart_e2e.CmdDaemon([e2e.FTAGENTD, "-c", e2e.CONF,
                                              "--socket", e2e.SOCK,
                                              "--state-dir", e2e.STATE]))


if __name__ == "__main__":
    sys.exit(main())
