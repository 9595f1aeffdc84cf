#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A stand-in for ftagentd's API socket (docs/api.md), for ftctl's host
tests: answers "events" from a log it grows itself, with the cursor
semantics of API 1.1, so `ftctl events --follow` can be tested without
the module. Each "after" request logs one more exec event (pids 101,
102, ...) until LAST; the log ages out one entry unread once (so the
follower must report it), and the daemon goes away for a while once
(so the follower must wait for it and carry on).

usage: fake_ftagentd.py SOCKET LAST
"""
import json
import os
import socket
import sys
import time

API = {"major": 1, "minor": 1}


def event(pos):
    pid = 100 + pos
    return {"time_ns": 1700000000000000000 + pos * 1000000000,
            "type": "exec", "cpu": 0, "seq": pos, "pid": pid, "tid": pid,
            "comm": "job%d" % pos, "argv": ["job%d" % pos], "exe": "/bin/x"}


def main():
    path, last = sys.argv[1], int(sys.argv[2])
    log = [event(1), event(2)]  # positions 1 and 2
    dropped = set()             # positions that aged out unread
    follows = 0
    gone = False

    def listen():
        if os.path.exists(path):
            os.unlink(path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(path)
        s.listen(8)
        return s

    srv = listen()
    while True:
        conn, _ = srv.accept()
        with conn:
            req = json.loads(conn.makefile().readline())
            reply = {"ok": True, "api_version": API}
            if req.get("cmd") != "events":
                reply = {"ok": False, "error": "fake: events only",
                         "api_version": API}
            elif "after" not in req:
                limit = req.get("limit", 1000)
                reply.update(more=False, cursor=len(log),
                             events=log[-limit:])
            else:
                follows += 1
                after = req["after"]
                if len(log) < last:
                    log.append(event(len(log) + 1))
                # Once: the entry just logged ages out before it is read.
                if len(log) == 4:
                    dropped.add(4)
                new = [log[i] for i in range(after, len(log))
                       if i + 1 not in dropped]
                skipped = len([p for p in dropped if p > after])
                reply.update(more=False, cursor=len(log), events=new,
                             skipped=skipped)
            conn.sendall((json.dumps(reply) + "\n").encode())
        # Once, after a few asks: the daemon restarts (2 s away).
        if follows == 5 and not gone:
            gone = True
            srv.close()
            os.unlink(path)
            time.sleep(2)
            srv = listen()


if __name__ == "__main__":
    main()
