/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What several ftctl commands share: sizes for people, text that fits 80
 * columns, and asking ftagentd.
 */
#ifndef FTCTL_HUMAN_H
#define FTCTL_HUMAN_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define FTCTL_COLUMNS 80

/* "512", "1.5K", "12.0M", "3.1G", "2.0T": powers of 1024. */
const char *ftctl_human(uint64_t v, char *buf, size_t len);
/* A size for ftctl stats: "512 B", "4.0 KiB", "1.5 MiB" (powers of 1024). */
const char *ftctl_size(uint64_t v, char *buf, size_t len);
/* The same for a rate, rounded to whole units below 1 K. */
const char *ftctl_human_rate(double v, char *buf, size_t len);
/* "42s", "5m03s", "3h12m", "2d04h". */
const char *ftctl_duration(uint64_t seconds, char *buf, size_t len);
/*
 * @s with what a terminal would not print as text shown as '?': C0 and
 * C1 controls (escape sequences: ESC, CSI as U+009B or a raw 0x9B), DEL,
 * and bytes that are not valid UTF-8. For every name or path in text
 * output: any local user names a process or a file.
 */
const char *ftctl_printable(const char *s, char *buf, size_t len);

/* Cut @s to @cols columns, ending in "..." when something was cut. */
void ftctl_fit(char *s, size_t cols);
/* A label padded to 18 columns and its value, cut to 80 columns. */
void ftctl_line(const char *label, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "  name value  name value ..." for an object of counts, wrapped. */
void ftctl_print_counts(struct json_object *counts);
/* The sum of an object's integer members. */
uint64_t ftctl_sum_counts(struct json_object *counts);

/* The member at a dotted path ("collector.event_queue"), or NULL. */
struct json_object *ftctl_jget(struct json_object *o, const char *path);
uint64_t ftctl_ju64(struct json_object *o, const char *path);
int64_t ftctl_ji64(struct json_object *o, const char *path);
double ftctl_jdouble(struct json_object *o, const char *path);
/* "" when absent or not a string. */
const char *ftctl_jstr(struct json_object *o, const char *path);
/*
 * The array at @path and its length in *@n; NULL and 0 when absent or
 * not an array (json-c's array calls assert their argument is one).
 */
struct json_object *ftctl_jarray(struct json_object *o, const char *path,
				 size_t *n);

/* Timeout of one request to the daemon. */
#define FTCTL_DAEMON_TIMEOUT_MS 5000

/*
 * Ask the daemon (api_client.h): 0 with *@reply, or a negative errno with
 * @err, as ftagent_api_call() returns them.
 */
int ftctl_daemon_call(struct json_object *req, struct json_object **reply,
		      char *err, size_t err_size);
/* {"cmd": @cmd} and the call, for requests without parameters. */
int ftctl_daemon_cmd(const char *cmd, struct json_object **reply, char *err,
		     size_t err_size);
/*
 * Report a failed call on stderr as "ftctl: WHAT: ..." and return the
 * exit code: FTCTL_NO_DAEMON when it is not running, else FTCTL_FAILED.
 */
int ftctl_report_daemon_error(const char *what, int rc, const char *err);

#endif /* FTCTL_HUMAN_H */
