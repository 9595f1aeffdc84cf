// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's running totals (totals.h): every dumped counter added
 * by what it was. The collector owns them; the metrics page reads them.
 */
#include <sys/socket.h>
#include <netinet/in.h>

#include "../tools/lib/counters.h"
#include "totals.h"

static void io_add(struct ftd_metrics_io *io,
		   const struct ftagent_dir_counts *c)
{
	io->bytes += c->bytes;
	io->calls += c->calls;
}

static enum ftd_metrics_family family_of(uint8_t family)
{
	switch (family) {
	case AF_INET: return FTD_MF_IPV4;
	case AF_INET6: return FTD_MF_IPV6;
	case AF_UNIX: return FTD_MF_UNIX;
	}
	return FTD_MF_OTHER;
}

void ftd_totals_account(struct ftd_metrics_totals *t,
			const struct ftagent_counter *k)
{
	enum ftd_metrics_proto p = FTD_MP_OTHER;
	enum ftd_metrics_family f;

	switch (k->kind) {
	case FTAGENT_OBJ_SOCKET:
		f = family_of(k->family);
		/* The protocol numbers are IP's only for IP sockets. */
		if (f == FTD_MF_IPV4 || f == FTD_MF_IPV6) {
			unsigned int proto = ftagent_counter_protocol(k);

			/* MPTCP runs over TCP: its bytes are TCP's. */
			if (proto == IPPROTO_TCP || proto == IPPROTO_MPTCP)
				p = FTD_MP_TCP;
			else if (proto == IPPROTO_UDP)
				p = FTD_MP_UDP;
		}
		io_add(&t->net[f][p][FTD_MD_IN], &k->in);
		io_add(&t->net[f][p][FTD_MD_OUT], &k->out);
		break;
	case FTAGENT_OBJ_FILE:
		io_add(&t->file[FTD_MD_IN], &k->in);
		io_add(&t->file[FTD_MD_OUT], &k->out);
		break;
	case FTAGENT_OBJ_TRANSFER: io_add(&t->transfer, &k->out); break;
	default: break;
	}
}
