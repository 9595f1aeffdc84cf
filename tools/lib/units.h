/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Values as operators write them in the config file: sizes ("4MB",
 * "512KiB", "4096"), durations ("250ms", "5s", "1m"), booleans
 * ("true", "no", "on", "0") and quoted strings.
 */
#ifndef FTAGENTD_UNITS_H
#define FTAGENTD_UNITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Each returns 0, or -1 with *@why set to a static reason. Sizes take
 * B, KB/KiB, MB/MiB, GB/GiB (all powers of 1024, as free(1) and the
 * kernel count), case-insensitive, spaces allowed before the unit.
 */
int ftagentd_parse_size(const char *s, uint64_t *bytes, const char **why);
/* Durations: ms, s, m, h; a bare number is milliseconds. */
int ftagentd_parse_duration(const char *s, uint64_t *ms, const char **why);
int ftagentd_parse_bool(const char *s, int *value, const char **why);
/* A plain count ("16384"), no unit. */
int ftagentd_parse_count(const char *s, uint64_t *n, const char **why);
/*
 * Split a list ("a, b", or quoted: "\"a b\", \"c\"") into its items,
 * calling @fn for each with its text and length; quotes are removed.
 * Returns 0, -1 with @why on bad quoting, or what @fn returned.
 */
int ftagentd_parse_list(const char *s,
			int (*fn)(const char *item, size_t len, void *arg),
			void *arg, const char **why);
/* One string, quoted or not; @out gets at most @size - 1 bytes. */
int ftagentd_parse_string(const char *s, char *out, size_t size,
			  const char **why);

#endif /* FTAGENTD_UNITS_H */
