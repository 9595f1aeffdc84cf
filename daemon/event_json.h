/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event records as the local API shows them (docs/api.md, "events"): one
 * JSON object per record of the event log, decoded again with records.h
 * so that a damaged entry becomes an error entry, never a crash. The
 * helpers below are shared with the API's tables: strings that may not
 * be UTF-8, socket families, protocols and endpoints.
 */
#ifndef FTAGENTD_EVENT_JSON_H
#define FTAGENTD_EVENT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "eventlog.h"

/*
 * One event: time_ns, type, cpu, seq, pid, tid, comm and the fields of
 * its type; an entry whose bytes do not decode gets time_ns, comm, size
 * and "error". NULL only when memory ran out.
 */
struct json_object *ftd_event_json(const struct ftd_event *ev);

/* A JSON string of @len bytes; bytes that are not UTF-8 become U+FFFD. */
struct json_object *ftd_json_bytes(const char *s, size_t len);
/* The same for a NUL-terminated string of at most @size bytes. */
struct json_object *ftd_json_cstr(const char *s, size_t size);
struct json_object *ftd_json_u64(uint64_t v);
/* "ipv4", "ipv6", "unix", or the number. */
struct json_object *ftd_json_family(unsigned int family);
/* "tcp", "udp", or the number. */
struct json_object *ftd_json_protocol(unsigned int protocol);
/*
 * "1.2.3.4:80" or "[::1]:80" from an address in network byte order (IPv4
 * in its first 4 bytes) and a port in host order; null for other
 * families.
 */
struct json_object *ftd_json_endpoint(unsigned int family,
				      const uint8_t addr[16], uint16_t port);

#endif /* FTAGENTD_EVENT_JSON_H */
