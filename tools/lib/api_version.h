/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The version of ftagentd's local API (docs/api.md, "Versions"), which
 * the daemon puts in every reply and its clients check. The minor grows
 * when commands, keys or reply fields are added; the major only when an
 * existing one changes or goes, and then a client of another major must
 * refuse the daemon rather than misread it.
 *
 *   1.0  stats, top, events, table (0.4.0, no version in replies)
 *   1.1  api_version in every reply; the version command; events "after"
 *        and "cursor", "skipped" (ftctl events --follow)
 *   1.2  stats: collector.loss_last_hour (ftctl doctor)
 */
#ifndef FTAGENT_LIB_API_VERSION_H
#define FTAGENT_LIB_API_VERSION_H

#define FTAGENT_API_MAJOR 1
#define FTAGENT_API_MINOR 2

#endif /* FTAGENT_LIB_API_VERSION_H */
