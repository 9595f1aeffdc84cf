/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's filters (SET_FILTERS, GET_FILTERS) and run-time
 * configuration (SET_CONFIG), on the control family.
 *
 * The client sends what the caller set and nothing else, and checks
 * nothing itself: the module is the one that validates (and says why it
 * refuses), so a caller can hand it anything, bad values included.
 */
#ifndef FTAGENT_LIB_FILTERS_H
#define FTAGENT_LIB_FILTERS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/ftagent.h>

#include "ftnl.h"

/* The u8 toggles, in the order of their attributes. */
enum ftagent_filter_toggle {
	FTAGENT_FILTER_NET_TCP,
	FTAGENT_FILTER_NET_UDP,
	FTAGENT_FILTER_NET_IPV4,
	FTAGENT_FILTER_NET_IPV6,
	FTAGENT_FILTER_FILE_TRACK_READ,
	FTAGENT_FILTER_FILE_TRACK_SENDFILE,

	__FTAGENT_FILTER_TOGGLES
};

/* A list of names (process names or path prefixes), replaced whole. */
struct ftagent_filter_list {
	int set;     /* send it (with n == 0: clear the list) */
	char **name; /* n strings, owned */
	size_t n, cap;
};

struct ftagent_filters {
	unsigned int toggles_set; /* bit (1 << toggle): send toggle[] */
	uint8_t toggle[__FTAGENT_FILTER_TOGGLES];
	struct ftagent_filter_list exclude_processes;
	struct ftagent_filter_list exclude_paths;
};

/* Nothing set. */
void ftagent_filters_init(struct ftagent_filters *f);
void ftagent_filters_free(struct ftagent_filters *f);
/* The module's defaults at load: every toggle 1, no names, no paths. */
int ftagent_filters_defaults(struct ftagent_filters *f);
/*
 * EXCLUDE_SELF on @ctl: the calling process and its descendants give no
 * counters and no events for as long as @ctl stays open. Needs
 * CAP_SYS_ADMIN. 0, or -1 with @err.
 */
int ftagent_exclude_self(struct ftnl *ctl, struct ftnl_error *err);

void ftagent_filters_set_toggle(struct ftagent_filters *f,
				enum ftagent_filter_toggle t, uint8_t value);
/* Mark @l to be sent, with no names yet (an empty list clears it). */
void ftagent_filter_list_clear(struct ftagent_filter_list *l);
/* Append a copy of @name (@len bytes; need not be NUL-terminated). 0/-1. */
int ftagent_filter_list_add(struct ftagent_filter_list *l, const char *name,
			    size_t len);

/* The attribute of a toggle, and its name ("net_tcp"). */
uint16_t ftagent_filter_toggle_attr(enum ftagent_filter_toggle t);
const char *ftagent_filter_toggle_name(enum ftagent_filter_toggle t);

/* Whether two filter sets hold the same toggles and lists. */
int ftagent_filters_equal(const struct ftagent_filters *a,
			  const struct ftagent_filters *b);

/* SET_FILTERS with what @f sets. 0, or -1 with @err (the module's reason). */
int ftagent_set_filters(struct ftnl *ctl, const struct ftagent_filters *f,
			struct ftnl_error *err);
/* GET_FILTERS into @f (every field set). 0, or -1 with @err. */
int ftagent_get_filters(struct ftnl *ctl, struct ftagent_filters *f,
			struct ftnl_error *err);
/* Decode a GET_FILTERS reply into @f (appending names). MNL_CB_*. */
int ftagent_filters_parse(const struct nlmsghdr *nlh,
			  struct ftagent_filters *f);

/* SET_CONFIG: only the fields whose FTAGENT_CONFIG_HAVE_* bit is set. */
struct ftagent_config {
	unsigned int set;
	uint32_t mode;		    /* enum ftagent_mode */
	uint32_t hooks;		    /* enum ftagent_hook_set */
	uint32_t flush_interval_ms; /* 0: only on FLUSH */
	uint32_t ring_buffer_size;  /* bytes, all CPUs; 0: mode default */
};

#define FTAGENT_CONFIG_HAVE_MODE	     (1u << 0)
#define FTAGENT_CONFIG_HAVE_HOOKS	     (1u << 1)
#define FTAGENT_CONFIG_HAVE_FLUSH_INTERVAL   (1u << 2)
#define FTAGENT_CONFIG_HAVE_RING_BUFFER_SIZE (1u << 3)

int ftagent_set_config(struct ftnl *ctl, const struct ftagent_config *cfg,
		       struct ftnl_error *err);
/* SET_CONFIG RING_BUFFER_SIZE alone. 0, or -1 with @err. */
int ftagent_set_ring_buffer_size(struct ftnl *ctl, uint32_t bytes,
				 struct ftnl_error *err);

#endif /* FTAGENT_LIB_FILTERS_H */
