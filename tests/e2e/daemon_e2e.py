#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ftagentd end to end, in the test guest, with the module loaded.

Real workloads move known sizes; ftagentd's figures (through ftctl and the
API) must equal those sizes and the kernel's own totals (/proc/PID/io, as
the exit record carries them). ftagentd is killed with SIGKILL in the
middle of a workload and restarted: not one counted byte may be lost. The
Prometheus page must pass promtool, and a real Prometheus server must
scrape it. Prints TAP.

usage: daemon_e2e.py BUILD_DIR
"""
import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
FTAGENTD = os.path.join(BUILD, "ftagentd")
FTCTL = os.path.join(BUILD, "ftctl")
WORK = tempfile.mkdtemp(prefix="ftagent-e2e-")
SOCK = os.path.join(WORK, "ftagentd.sock")
STATE = os.path.join(WORK, "state")
CONF = os.path.join(WORK, "ftagent.conf")
EVENTS = os.path.join(WORK, "events.jsonl")
METRICS = "127.0.0.1:9465"
WAIT_S = 60  # how long a figure may take to arrive (TCG is slow)

os.environ["FTAGENT_SOCKET"] = SOCK


def log(msg):
    for line in str(msg).splitlines():
        print("# " + line, flush=True)


class Daemon:
    def __init__(self):
        self.proc = None
        # Stand in for systemd: a Type=notify service reports here.
        self.notify_path = os.path.join(WORK, "notify")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        self.notify.setblocking(False)

    def notifications(self):
        msgs = []
        while True:
            try:
                msgs.append(self.notify.recv(4096).decode())
            except BlockingIOError:
                return msgs

    def start(self):
        self.out = open(os.path.join(WORK, "ftagentd.log"), "a")
        self.proc = subprocess.Popen(
            [FTAGENTD, "-c", CONF, "--socket", SOCK, "--state-dir", STATE],
            stdout=self.out, stderr=self.out,
            env=dict(os.environ, NOTIFY_SOCKET=self.notify_path))
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("ftagentd exited with %d: %s" % (
                    self.proc.returncode, self.log_text()))
            try:
                if api({"cmd": "stats"})["ok"]:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("ftagentd did not answer in %d s" % WAIT_S)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            rc = self.proc.wait(timeout=WAIT_S)
            if rc != 0:
                raise AssertionError("ftagentd stopped with status %d" % rc)

    def log_text(self):
        with open(os.path.join(WORK, "ftagentd.log")) as f:
            return f.read()[-4000:]


def api(req):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(WAIT_S)
        s.connect(SOCK)
        s.sendall(json.dumps(req).encode() + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
    return json.loads(buf)


def ftctl_json(*args):
    out = subprocess.run([FTCTL, "--json", *args], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def top_row(pid):
    for row in ftctl_json("top", "--once"):
        if row["pid"] == pid:
            return row
    return None


def wait_for(what, fn):
    """Poll fn() until it returns a true value; its last value otherwise."""
    deadline = time.monotonic() + WAIT_S
    value = None
    while time.monotonic() < deadline:
        value = fn()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError("%s: not seen in %d s (last: %r)" % (what, WAIT_S,
                                                              value))


def exit_record(pid):
    def find():
        r = api({"cmd": "events", "types": ["exit"], "pid": pid})
        assert r["ok"], r
        return r["events"][0] if r["events"] else None
    return wait_for("exit record of %d" % pid, find)


def eq(what, got, want):
    if got != want:
        raise AssertionError("%s: got %r, want %r" % (what, got, want))


# ---------------------------------------------------------------- tests

def test_dd_file_bytes_match_the_kernel(d):
    size = 64 * 1024 * 160
    path = os.path.join(WORK, "dd.out")
    p = subprocess.Popen(["dd", "if=/dev/zero", "of=" + path, "bs=64k",
                          "count=160", "status=none"])
    eq("dd status", p.wait(), 0)
    eq("file size", os.path.getsize(path), size)
    ex = exit_record(p.pid)
    # Everything dd read and wrote, by the kernel's own count at exit.
    row = wait_for("dd's counters", lambda: (
        lambda r: r if r and r["file_out_bytes"] + r.get(
            "other_out_bytes", 0) >= ex["wchar"] else None)(
                api_top_row(p.pid)))
    eq("dd file bytes written", row["file_out_bytes"], size)
    eq("dd bytes written, all kinds (wchar)",
       row["file_out_bytes"] + row["other_out_bytes"], ex["wchar"])
    # dd's reads of /dev/zero, exactly. (Its rchar at exit also holds the
    # bytes execve read from the binary and ld.so inside the kernel, which
    # are not system calls: see the next test for rchar.)
    eq("dd bytes read from /dev/zero", row["other_in_bytes"], size)
    eq("comm", row["comm"], "dd")
    # The exec, through ftctl events and in the JSON-lines file.
    evs = ftctl_json("events", "--since", "5m", "--type", "exec", "--pid",
                     str(p.pid))
    assert len(evs) == 1 and evs[0]["comm"] == "dd", evs
    eq("exec argv", evs[0]["argv"][-1], "status=none")

    def in_file():
        with open(EVENTS) as f:
            for line in f:
                e = json.loads(line)
                if e["type"] == "exec" and e["pid"] == p.pid:
                    return e
        return None
    eq("event_output line", wait_for("dd's exec in " + EVENTS, in_file),
       evs[0])
    # ftctl top --json says the same.
    eq("ftctl top file_out_bytes", top_row(p.pid)["file_out_bytes"], size)


def proc_io(pid):
    with open("/proc/%d/io" % pid) as f:
        return {k: int(v) for k, v in (line.split(": ") for line in f)}


def test_live_process_matches_proc_pid_io(d):
    """A process that never execs: every byte it read or wrote went through
    a traced call, so /proc/PID/io rchar and wchar must equal ftagent's."""
    src = os.path.join(WORK, "io.src")
    with open(src, "wb") as f:
        f.write(os.urandom(1234567))
    go_rd, go_wr = os.pipe()
    out_rd, out_wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_wr)
        os.close(out_rd)
        fd = os.open(src, os.O_RDONLY)
        while os.read(fd, 65536):
            pass
        os.pread(fd, 1000, 17)
        os.close(fd)
        fd = os.open(os.path.join(WORK, "io.dst"), os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"z" * 777777)
        os.close(fd)
        os.write(out_wr, b"ready")  # a pipe: "other" bytes
        os.read(go_rd, 1)  # blocks until the checks are done
        os._exit(0)
    os.close(go_rd)
    os.close(out_wr)
    eq("child's pipe message", os.read(out_rd, 16), b"ready")
    io = proc_io(pid)

    def counted():
        r = api_top_row(pid)
        if not r:
            return None
        got = (r["file_in_bytes"] + r["other_in_bytes"] + r["net_in_bytes"],
               r["file_out_bytes"] + r["other_out_bytes"] +
               r["net_out_bytes"])
        return r if got == (io["rchar"], io["wchar"]) else None
    try:
        row = wait_for("rchar %d and wchar %d" % (io["rchar"], io["wchar"]),
                       counted)
    finally:
        os.write(go_wr, b"g")
        os.close(go_wr)
        os.close(out_rd)
        os.waitpid(pid, 0)
    eq("file bytes read", row["file_in_bytes"], 1234567 + 1000)
    eq("file bytes written", row["file_out_bytes"], 777777)


def api_top_row(pid):
    r = api({"cmd": "top", "limit": 100000})
    assert r["ok"], r
    for row in r["processes"]:
        if row["pid"] == pid:
            return row
    return None


def tcp_pair(size, sender):
    """A loopback TCP transfer of @size bytes; @sender(sock, size) sends.
    Returns (server pid, client pid)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    port = ls.getsockname()[1]
    rd, wr = os.pipe()
    server = os.fork()
    if server == 0:
        os.close(rd)
        c, _ = ls.accept()
        got = 0
        while True:
            b = c.recv(1 << 16)
            if not b:
                break
            got += len(b)
        os.write(wr, str(got).encode())
        os._exit(0)
    ls.close()
    os.close(wr)
    client = os.fork()
    if client == 0:
        s = socket.create_connection(("127.0.0.1", port))
        sender(s, size)
        s.close()
        os._exit(0)
    eq("client status", os.waitpid(client, 0)[1], 0)
    got = int(os.read(rd, 64))
    os.close(rd)
    eq("server status", os.waitpid(server, 0)[1], 0)
    eq("bytes the server received", got, size)
    return server, client


def test_loopback_tcp_bytes_match_sizes(d):
    size = 3 * 1000 * 1000 + 17
    server, client = tcp_pair(size, lambda s, n: s.sendall(b"x" * n))
    srow = wait_for("server's bytes", lambda: (
        lambda r: r if r and r["net_in_bytes"] >= size else None)(
            api_top_row(server)))
    crow = wait_for("client's bytes", lambda: (
        lambda r: r if r and r["net_out_bytes"] >= size else None)(
            api_top_row(client)))
    eq("server net_in_bytes", srow["net_in_bytes"], size)
    eq("client net_out_bytes", crow["net_out_bytes"], size)
    eq("ftctl top net_out_bytes", top_row(client)["net_out_bytes"], size)
    # The flow between them carries the same bytes, named by its ends.
    rows = api({"cmd": "table", "name": "flows", "limit": 100000})
    assert rows["ok"], rows
    outs = [f for f in rows["rows"]
            if f["out_bytes"] == size and f["remote"].startswith(
                "127.0.0.1:")]
    assert outs, "no flow with %d bytes out: %r" % (size, rows["rows"][:8])


def test_sendfile_is_a_direct_transfer(d):
    size = 2 * 1024 * 1024 + 5
    path = os.path.join(WORK, "sendfile.src")
    with open(path, "wb") as f:
        f.write(os.urandom(size))

    def send(s, n):
        with open(path, "rb") as f:
            off = 0
            while off < n:
                off += os.sendfile(s.fileno(), f.fileno(), off, n - off)

    server, client = tcp_pair(size, send)
    ino = os.stat(path).st_ino

    def direct():
        r = api({"cmd": "table", "name": "transfers", "limit": 100000})
        assert r["ok"], r
        for x in r["rows"]:
            if x["pid"] == client and x["ino"] == ino and \
                    not x["attributed"] and x["bytes"] >= size:
                return x
        return None
    x = wait_for("the sendfile transfer", direct)
    eq("transfer bytes", x["bytes"], size)


def test_kill9_and_restart_lose_no_byte(d):
    chunks, chunk = 40, 256 * 1024
    path = os.path.join(WORK, "slow.out")
    go_rd, go_wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_wr)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        buf = b"y" * chunk
        for i in range(chunks):
            os.write(fd, buf)
            if i == chunks // 2:
                os.read(go_rd, 1)  # wait while the daemon is killed
            else:
                time.sleep(0.02)
        os.close(fd)
        os._exit(0)
    os.close(go_rd)
    # Let the daemon count some of it, then kill it without warning.
    wait_for("the first half counted", lambda: (
        lambda r: r and r["file_out_bytes"] >= chunk * 4)(api_top_row(pid)))
    d.kill9()
    os.write(go_wr, b"g")  # the second half runs with no daemon
    os.close(go_wr)
    eq("writer status", os.waitpid(pid, 0)[1], 0)
    d.start()
    state = api({"cmd": "stats"})["daemon"]["state"]
    # The restart came back from the journal, not from nothing.
    assert state["replayed_generations"] > 0, state
    size = chunks * chunk
    row = wait_for("the whole file counted", lambda: (
        lambda r: r if r and r["file_out_bytes"] >= size else None)(
            api_top_row(pid)))
    eq("bytes after kill -9 and restart", row["file_out_bytes"], size)
    eq("file size", os.path.getsize(path), size)


def scrape():
    with urllib.request.urlopen("http://%s/metrics" % METRICS,
                                timeout=WAIT_S) as r:
        eq("content type", r.headers.get_content_type(), "text/plain")
        return r.read().decode()


def test_promtool_accepts_the_page(d):
    page = scrape()
    p = subprocess.run(["promtool", "check", "metrics"], input=page,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError("promtool: %s %s" % (p.stdout, p.stderr))
    for name in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                 "ftagent_events_total", "ftagent_events_dropped_total"):
        assert ("\n" + name) in page, name + " missing"


ALERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "..", "..", "docs", "metrics", "alerts.yml")
SCRAPE_LABELS = 'job="ftagent",instance="%s"' % METRICS


def page_samples(page):
    """{series: value} of a page, with the labels Prometheus adds."""
    out = {}
    for line in page.splitlines():
        if not line or line.startswith("#"):
            continue
        series, value = line.rsplit(" ", 1)
        if "{" in series:
            series = series[:-1] + "," + SCRAPE_LABELS + "}"
        else:
            series += "{" + SCRAPE_LABELS + "}"
        out[series] = value
    return out


def alert_names():
    with open(ALERTS) as f:
        return re.findall(r"^\s*- alert: (\S+)$", f.read(), re.M)


def promtool_test(before, after, expected):
    """Fifteen minutes of the scrape @before then fifteen of @after, one
    sample a minute, through `promtool test rules` on
    docs/metrics/alerts.yml, evaluated at 20m: the change is then inside
    the rules' 10m windows, and a `for: 15m` has had its time. @expected:
    {alertname: [exp_alerts]}; every other alert must stay silent.
    Returns promtool's status and output."""
    series = []
    for name in sorted(set(before) | set(after)):
        b = before.get(name, after.get(name))
        a = after.get(name, b)
        series.append({"series": name,
                       "values": " ".join([b] * 15 + [a] * 15)})
    tests = [{"eval_time": "20m", "alertname": n,
              "exp_alerts": expected.get(n, [])} for n in alert_names()]
    path = os.path.join(WORK, "alerts_test.yml")
    with open(path, "w") as f:  # JSON is YAML
        json.dump({"rule_files": [os.path.abspath(ALERTS)],
                   "evaluation_interval": "1m",
                   "tests": [{"interval": "1m", "input_series": series,
                              "alert_rule_test": tests}]}, f)
    p = subprocess.run(["promtool", "test", "rules", path],
                       capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def dropped(samples):
    return {re.search(r'cause="([^"]*)"', k).group(1): float(v)
            for k, v in samples.items()
            if k.startswith("ftagent_events_dropped_total{")}


def test_alerts_on_real_scrapes(d):
    """docs/metrics/alerts.yml against real scrapes: on this healthy host
    no alert fires; made to lose events (a 64 KiB buffer and a stopped
    daemon), FtagentEventsLost fires, for each cause that grew, and
    nothing else does."""
    h1 = page_samples(scrape())
    time.sleep(2)
    h2 = page_samples(scrape())
    rc, out = promtool_test(h1, h2, {})
    if rc != 0:
        raise AssertionError("an alert fired on a healthy host:\n" + out)
    # The check can fail: the same input, expecting a loss alert.
    rc, out = promtool_test(h1, h2, {"FtagentEventsLost": [
        {"exp_labels": {"severity": "warning", "cause": "buffer_full",
                        "instance": METRICS}}]})
    assert rc != 0, "promtool passed a loss alert on a healthy host"

    with open(CONF) as f:
        good = f.read()
    # The module's least: 64 KiB a CPU.
    small = "[agent]\nring_buffer_size = %dKB\n" % (64 * os.cpu_count())
    try:
        reload_with(d, good.replace("[agent]\n", small, 1))
        time.sleep(1)
        before = page_samples(scrape())
        # 2,000 execs of a static binary on the guest's tmpfs: from the
        # 9p root each exec costs tens of ms under TCG, and this loop
        # took a minute and a half.
        true = os.path.join(WORK, "busybox")
        shutil.copy("/bin/busybox", true)
        d.proc.send_signal(signal.SIGSTOP)
        try:
            subprocess.run(["sh", "-c", 'for i in $(seq 2000); do '
                            '"$0" true; done', true], check=True)
        finally:
            d.proc.send_signal(signal.SIGCONT)
        after = wait_for("events dropped on the page", lambda: (
            lambda s: s if sum(dropped(s).values()) >
            sum(dropped(before).values()) else None)(
                page_samples(scrape())))
    finally:
        reload_with(d, good)
    grew = sorted(c for c, v in dropped(after).items()
                  if v > dropped(before).get(c, 0))
    log("causes that grew: %s" % grew)
    summary = "ftagent lost event records (%s) on " + METRICS
    rc, out = promtool_test(before, after, {"FtagentEventsLost": [
        {"exp_labels": {"severity": "warning", "cause": c,
                        "instance": METRICS},
         "exp_annotations": {"summary": summary % c}} for c in grew]})
    if rc != 0:
        raise AssertionError("the alerts on a lossy host:\n" + out)


def test_prometheus_scrapes_the_page(d):
    if not shutil.which("prometheus"):
        raise AssertionError("prometheus is not installed (make deps)")
    pdir = os.path.join(WORK, "prom")
    os.makedirs(pdir)
    cfg = os.path.join(pdir, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n"
                "scrape_configs:\n  - job_name: ftagent\n"
                "    static_configs:\n      - targets: ['%s']\n" % METRICS)
    out = open(os.path.join(pdir, "log"), "w")
    prom = subprocess.Popen(
        ["prometheus", "--config.file=" + cfg,
         "--storage.tsdb.path=" + os.path.join(pdir, "data"),
         "--web.listen-address=127.0.0.1:9090"], stdout=out, stderr=out)
    try:
        def query():
            q = "http://127.0.0.1:9090/api/v1/query?query=" \
                "ftagent_generations_total"
            try:
                with urllib.request.urlopen(q, timeout=5) as r:
                    res = json.loads(r.read())["data"]["result"]
            except OSError:
                return None
            return res[0] if res else None
        deadline = time.monotonic() + 3 * WAIT_S
        res = None
        while time.monotonic() < deadline and not res:
            res = query()
            time.sleep(1)
        if not res:
            with open(os.path.join(pdir, "log")) as f:
                log(f.read()[-2000:])
            raise AssertionError("Prometheus did not scrape the page")
        assert float(res["value"][1]) > 0, res
    finally:
        prom.terminate()
        prom.wait()


def test_bad_reload_keeps_running_config(d):
    with open(CONF) as f:
        good = f.read()
    with open(CONF, "a") as f:
        f.write("\n[limits]\nprocesses = lots\n")
    d.proc.send_signal(signal.SIGHUP)
    st = wait_for("the refused reload", lambda: (
        lambda r: r if r["daemon"]["reload_errors"] >= 1 else None)(
            api({"cmd": "stats"})))
    err = st["daemon"]["last_reload_error"]
    assert "ftagent.conf:" in err and "processes" in err, err
    eq("daemon alive", d.proc.poll(), None)
    with open(CONF, "w") as f:
        f.write(good)
    d.proc.send_signal(signal.SIGHUP)
    wait_for("the good reload", lambda: api({"cmd": "stats"})["daemon"][
        "reloads"] >= 1)


def test_stats_sections(d):
    st = ftctl_json("stats")
    assert st["daemon"] is not None, st
    tables = st["daemon"]["collector"]["tables"]
    eq("process table capacity", tables["processes"]["capacity"], 4096)
    assert tables["processes"]["used"] > 0, tables
    text = subprocess.run([FTCTL, "stats"], check=True, capture_output=True,
                          text=True).stdout
    for section in ("RESOURCES", "COLLECTOR", "KERNEL"):
        assert section in text, section + " missing:\n" + text
    width = max(len(line) for line in text.splitlines())
    assert width <= 80, "a line of %d columns" % width
    # Labels say what they measure (issue 17). The drain's reads, not a
    # queue "in use"; hooks proven firing are attached too, so "attached"
    # counts both; the config file read is named.
    assert "in use" not in text and "Event queue" not in text, text
    assert re.search(r"^Event reads: +buffer [0-9.]+ [KMG]?i?B; last read "
                     r"[0-9.]+ [KMG]?i?B, largest ", text, re.M), text
    assert re.search(r"^Hooks: +(\d+) attached \((\d+) seen firing\), "
                     r"\d+ failed$", text, re.M), text
    assert not re.search(r"\d+ verified, \d+ attached", text), text
    assert re.search(r"^Config: +%s, \d+ reloads" % re.escape(CONF), text,
                     re.M), text
    # One size format on the screen: "12.0 MiB", never "12.0M" or "MB".
    for bad in re.findall(r"\b\d+(?:\.\d+)? ?(?:[KMGT]B?|[kmgt]i?B)\b",
                          text):
        raise AssertionError("size %r not in the screen's format:\n%s"
                             % (bad, text))


def test_policy_from_the_config_file(d):
    """A [policy.NAME] rule in the daemon's config, applied on reload:
    the connect it names is refused, ftctl shows the rule's hits and the
    verdict; taking the rule out lets the connect through again."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    port = ls.getsockname()[1]
    with open(CONF) as f:
        good = f.read()
    with open(CONF, "a") as f:
        f.write("\n[policy.e2e-no-port]\nops = connect\naction = deny\n"
                "port = %d\n" % port)
    reloads = api({"cmd": "stats"})["daemon"]["reloads"]
    d.proc.send_signal(signal.SIGHUP)
    wait_for("the reload", lambda: api({"cmd": "stats"})["daemon"][
        "reloads"] > reloads)
    try:
        s = socket.socket()
        err = s.connect_ex(("127.0.0.1", port))
        s.close()
        eq("connect under the rule", err, errno.EPERM)
        pol = ftctl_json("policy", "show")
        rule = [r for r in pol["rules"] if r["name"] == "e2e-no-port"]
        assert rule and rule[0]["hits"] == 1, pol
        ev = wait_for("the verdict event", lambda: [
            e for e in ftctl_json("events", "--since", "5m", "--type",
                                  "verdict", "--pid", str(os.getpid()))
            if e["rule_name"] == "e2e-no-port"])
        eq("verdict", ev[0]["verdict"], "denied")
        eq("verdict remote", ev[0]["remote"], "127.0.0.1:%d" % port)
        st = ftctl_json("stats")
        assert any(r["name"] == "e2e-no-port" and r["hits"] == 1
                   for r in st["policy"]["rules"]), st["policy"]
    finally:
        with open(CONF, "w") as f:
            f.write(good)
        reloads = api({"cmd": "stats"})["daemon"]["reloads"]
        d.proc.send_signal(signal.SIGHUP)
        wait_for("the reload", lambda: api({"cmd": "stats"})["daemon"][
            "reloads"] > reloads)
    s = socket.socket()
    eq("connect without the rule", s.connect_ex(("127.0.0.1", port)), 0)
    s.close()
    ls.close()


def reload_with(d, text):
    reloads = api({"cmd": "stats"})["daemon"]["reloads"]
    with open(CONF, "w") as f:
        f.write(text)
    d.proc.send_signal(signal.SIGHUP)
    wait_for("the reload", lambda: api({"cmd": "stats"})["daemon"][
        "reloads"] > reloads)


def test_budget_from_the_config_file(d):
    """A [budget.NAME] of 2 connects for this test's process subtree: the
    third connect gets EDQUOT; ftctl budget show says so."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    port = ls.getsockname()[1]
    with open(CONF) as f:
        good = f.read()
    reload_with(d, good + "\n[budget.e2e-connects]\nmetric = connects\n"
                "limit = 2\nwindow = 1h\nsubtree = %d\n" % os.getpid())
    try:
        results = []
        for _ in range(3):
            s = socket.socket()
            results.append(s.connect_ex(("127.0.0.1", port)))
            s.close()
        eq("three connects", results, [0, 0, errno.EDQUOT])
        b = [x for x in ftctl_json("budget", "show")
             if x["name"] == "e2e-connects"]
        assert b, ftctl_json("budget", "show")
        eq("used", b[0]["used"], 2)
        eq("denied", b[0]["denied"], 1)
        ev = wait_for("the budget verdict", lambda: [
            e for e in ftctl_json("events", "--since", "5m", "--type",
                                  "verdict", "--pid", str(os.getpid()))
            if e["rule_name"] == "e2e-connects"])
        eq("verdict", ev[0]["verdict"], "over_budget")
        eq("source", ev[0]["source"], "budget")
    finally:
        reload_with(d, good)
    eq("budgets after the reload", ftctl_json("budget", "show"), [])
    ls.close()


def test_systemd_notifications(d):
    d.notifications()  # whatever came before
    d.stop()
    msgs = d.notifications()
    assert any("STOPPING=1" in m for m in msgs), msgs
    d.start()
    msgs = d.notifications()
    assert any("READY=1" in m for m in msgs), msgs
    d.proc.send_signal(signal.SIGHUP)
    seen = []

    def reloaded():
        seen.extend(d.notifications())
        text = "\n".join(seen)
        start = text.find("RELOADING=1")
        return start >= 0 and "READY=1" in text[start:]
    wait_for("RELOADING=1 then READY=1", reloaded)


def test_events_follow_prints_new_execs(d):
    """ftctl events --follow: processes started after it begins show up,
    each once, as JSON lines, while it keeps running; the API says 1.2."""
    eq("api_version", api({"cmd": "version"})["api_version"],
       {"major": 1, "minor": 2})
    out_path = os.path.join(WORK, "follow.out")

    def execs():
        p = subprocess.Popen(["true"])
        p.wait()
        return p.pid

    def printed(pids):
        # Whole lines only: ftctl's stdout is a file, written a buffer
        # at a time, so the last line may be half there.
        with open(out_path) as fh:
            lines = fh.read().split("\n")[:-1]
        got = [json.loads(line)["pid"] for line in lines]
        return got if all(pid in got for pid in pids) else None

    # A first exec, shown once ftctl is up and reading (however long it
    # takes to start on a loaded guest: no fixed sleep); the three after
    # it began after ftctl did, so only --follow can show them.
    marker = [execs()]
    with open(out_path, "w") as out:
        f = subprocess.Popen([FTCTL, "--json", "events", "--follow",
                              "--interval", "0.2", "--type=exec",
                              "--since", "10m"], stdout=out,
                             stderr=subprocess.PIPE, text=True)
    try:
        wait_for("an exec from before ftctl events --follow",
                 lambda: printed(marker))
        pids = [execs() for _ in range(3)]
        got = wait_for("the execs in ftctl events --follow",
                       lambda: printed(pids))
        for pid in pids:
            eq("times pid %d printed" % pid, got.count(pid), 1)
        assert f.poll() is None, "ftctl events --follow exited"
    finally:
        f.terminate()
        err = f.communicate()[1]
    assert "aged out" not in err, err


def test_stats_without_the_daemon(d):
    d.stop()
    p = subprocess.run([FTCTL, "stats"], capture_output=True, text=True)
    eq("ftctl stats status without the daemon", p.returncode, 0)
    assert "ftagentd is not running" in p.stdout + p.stderr, p
    assert "KERNEL" in p.stdout, p.stdout
    st = ftctl_json("stats")
    eq("daemon section", st["daemon"], None)
    assert st["kernel"] is not None and st["daemon_error"], st
    d.start()


TESTS = [
    test_dd_file_bytes_match_the_kernel,
    test_live_process_matches_proc_pid_io,
    test_loopback_tcp_bytes_match_sizes,
    test_sendfile_is_a_direct_transfer,
    test_stats_sections,
    test_promtool_accepts_the_page,
    test_prometheus_scrapes_the_page,
    test_alerts_on_real_scrapes,
    test_bad_reload_keeps_running_config,
    test_events_follow_prints_new_execs,
    test_stats_without_the_daemon,
    test_systemd_notifications,
    test_policy_from_the_config_file,
    test_budget_from_the_config_file,
    test_kill9_and_restart_lose_no_byte,
]


def run_tap(tests, d, start=None, stop=None):
    """Run each of @tests with the daemon @d up, as TAP; 0 if all passed.

    Shared by every e2e program here. @start and @stop default to d's
    own; a daemon found dead before a test is started again. Everything
    under WORK goes at the end.
    """
    start = start or d.start
    stop = stop or d.stop
    print("1..%d" % len(tests), flush=True)
    failed = 0
    try:
        start()
    except Exception:
        log(traceback.format_exc())
        for i, t in enumerate(tests, 1):
            print("not ok %d - %s" % (i, t.__name__))
        return 1
    for i, t in enumerate(tests, 1):
        started = time.monotonic()
        try:
            if d.proc is None or d.proc.poll() is not None:
                start()
            t(d)
            log("%s: %.0f s" % (t.__name__, time.monotonic() - started))
            print("ok %d - %s" % (i, t.__name__), flush=True)
        except Exception:
            failed += 1
            log(traceback.format_exc())
            log(d.log_text())
            print("not ok %d - %s" % (i, t.__name__), flush=True)
    try:
        stop()
    except Exception:
        log(traceback.format_exc())
        failed += 1
    shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failed else 0


def main():
    with open(CONF, "w") as f:
        f.write("[agent]\nmode = standard\nevent_output = %s\n\n"
                "[metrics]\nlisten = %s\n" % (EVENTS, METRICS))
    return run_tap(TESTS, Daemon())


if __name__ == "__main__":
    sys.exit(main())
