/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling systemd how the service is doing (Type=notify), without
 * libsystemd: the protocol is one datagram of "KEY=value" lines sent to
 * the unix socket named by $NOTIFY_SOCKET (an abstract one when the name
 * starts with '@'). No $NOTIFY_SOCKET, not under systemd: nothing is sent.
 */
#ifndef FTAGENTD_NOTIFY_H
#define FTAGENTD_NOTIFY_H

/* 1 sent, 0 no $NOTIFY_SOCKET, -errno (as sd_notify() returns). */
int ftd_notify(const char *state);
int ftd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* FTAGENTD_NOTIFY_H */
