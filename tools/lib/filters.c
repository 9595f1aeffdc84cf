// SPDX-License-Identifier: GPL-2.0
/*
 * Filters and run-time configuration: build SET_FILTERS / SET_CONFIG
 * requests from exactly what the caller set, and decode GET_FILTERS
 * strictly (a wrongly typed attribute fails the reply).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "filters.h"

static const struct {
	uint16_t attr;
	const char *name;
} toggles[__FTAGENT_FILTER_TOGGLES] = {
	[FTAGENT_FILTER_NET_TCP] = {FTAGENT_CTL_A_NET_TCP, "net_tcp"},
	[FTAGENT_FILTER_NET_UDP] = {FTAGENT_CTL_A_NET_UDP, "net_udp"},
	[FTAGENT_FILTER_NET_IPV4] = {FTAGENT_CTL_A_NET_IPV4, "net_ipv4"},
	[FTAGENT_FILTER_NET_IPV6] = {FTAGENT_CTL_A_NET_IPV6, "net_ipv6"},
	[FTAGENT_FILTER_FILE_TRACK_READ] = {FTAGENT_CTL_A_FILE_TRACK_READ,
					    "file_track_read"},
	[FTAGENT_FILTER_FILE_TRACK_SENDFILE] =
		{FTAGENT_CTL_A_FILE_TRACK_SENDFILE, "file_track_sendfile"},
};

uint16_t ftagent_filter_toggle_attr(enum ftagent_filter_toggle t)
{
	return t < __FTAGENT_FILTER_TOGGLES ? toggles[t].attr : 0;
}

const char *ftagent_filter_toggle_name(enum ftagent_filter_toggle t)
{
	return t < __FTAGENT_FILTER_TOGGLES ? toggles[t].name : "unknown";
}

void ftagent_filters_init(struct ftagent_filters *f)
{
	memset(f, 0, sizeof(*f));
}

static void list_free(struct ftagent_filter_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

void ftagent_filters_free(struct ftagent_filters *f)
{
	list_free(&f->exclude_processes);
	list_free(&f->exclude_paths);
	memset(f, 0, sizeof(*f));
}

void ftagent_filters_set_toggle(struct ftagent_filters *f,
				enum ftagent_filter_toggle t, uint8_t value)
{
	if (t >= __FTAGENT_FILTER_TOGGLES)
		return;
	f->toggle[t] = value;
	f->toggles_set |= 1u << t;
}

void ftagent_filter_list_clear(struct ftagent_filter_list *l)
{
	list_free(l);
	l->set = 1;
}

int ftagent_filter_list_add(struct ftagent_filter_list *l, const char *name,
			    size_t len)
{
	char *copy;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		char **p = realloc(l->name, cap * sizeof(*p));

		if (!p)
			return -1;
		l->name = p;
		l->cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, name, len);
	copy[len] = '\0';
	l->name[l->n++] = copy;
	l->set = 1;
	return 0;
}

int ftagent_filters_defaults(struct ftagent_filters *f)
{
	int t;

	ftagent_filters_init(f);
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		ftagent_filters_set_toggle(f, t, 1);
	ftagent_filter_list_clear(&f->exclude_paths);
	ftagent_filter_list_clear(&f->exclude_processes);
	return 0;
}

int ftagent_exclude_self(struct ftnl *ctl, struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;

	req = ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_EXCLUDE_SELF, 0);
	return ftnl_transact(ctl, req, NULL, NULL, err);
}

static int list_equal(const struct ftagent_filter_list *a,
		      const struct ftagent_filter_list *b)
{
	size_t i;

	if (a->set != b->set || a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->name[i], b->name[i]))
			return 0;
	return 1;
}

int ftagent_filters_equal(const struct ftagent_filters *a,
			  const struct ftagent_filters *b)
{
	int t;

	if (a->toggles_set != b->toggles_set)
		return 0;
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		if ((a->toggles_set & (1u << t)) &&
		    a->toggle[t] != b->toggle[t])
			return 0;
	return list_equal(&a->exclude_processes, &b->exclude_processes) &&
	       list_equal(&a->exclude_paths, &b->exclude_paths);
}

/* Bytes a list takes in a request: the nest and one attribute a name. */
static size_t list_size(const struct ftagent_filter_list *l)
{
	size_t i, n = MNL_ATTR_HDRLEN;

	for (i = 0; i < l->n; i++)
		n += MNL_ATTR_HDRLEN + MNL_ALIGN(strlen(l->name[i]) + 1);
	return n;
}

static void put_list(struct nlmsghdr *req, uint16_t type,
		     const struct ftagent_filter_list *l)
{
	struct nlattr *nest;
	size_t i;

	if (!l->set)
		return;
	nest = mnl_attr_nest_start(req, type);
	for (i = 0; i < l->n; i++)
		mnl_attr_put_strz(req, FTAGENT_CTL_A_NAME, l->name[i]);
	mnl_attr_nest_end(req, nest);
}

int ftagent_set_filters(struct ftnl *ctl, const struct ftagent_filters *f,
			struct ftnl_error *err)
{
	/*
	 * 64 paths of 1 KiB do not fit MNL_SOCKET_BUFFER_SIZE, and a caller
	 * may send more on purpose: size the request to what it holds.
	 */
	size_t size = MNL_SOCKET_BUFFER_SIZE +
		      list_size(&f->exclude_processes) +
		      list_size(&f->exclude_paths);
	struct nlmsghdr *req;
	char *buf;
	int t, rc;

	/* A nest's length is 16 bits: a longer list would be cut short. */
	if (list_size(&f->exclude_processes) > UINT16_MAX ||
	    list_size(&f->exclude_paths) > UINT16_MAX) {
		memset(err, 0, sizeof(*err));
		err->err = EMSGSIZE;
		strcpy(err->msg, "a list does not fit one netlink attribute");
		return -1;
	}
	buf = calloc(1, size);
	if (!buf) {
		memset(err, 0, sizeof(*err));
		err->err = ENOMEM;
		strcpy(err->msg, "cannot build the request");
		return -1;
	}
	req = ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_SET_FILTERS, 0);
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		if (f->toggles_set & (1u << t))
			mnl_attr_put_u8(req, toggles[t].attr, f->toggle[t]);
	put_list(req, FTAGENT_CTL_A_EXCLUDE_PROCESSES, &f->exclude_processes);
	put_list(req, FTAGENT_CTL_A_EXCLUDE_PATHS, &f->exclude_paths);
	rc = ftnl_transact(ctl, req, NULL, NULL, err);
	free(buf);
	return rc;
}

static int name_attr(const struct nlattr *a, void *data)
{
	struct ftagent_filter_list *l = data;

	if (mnl_attr_get_type(a) != FTAGENT_CTL_A_NAME)
		return MNL_CB_OK; /* newer minor ABI */
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0 ||
	    ftagent_filter_list_add(l, mnl_attr_get_str(a),
				    strlen(mnl_attr_get_str(a))) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

static int parse_list(const struct nlattr *nest, struct ftagent_filter_list *l)
{
	ftagent_filter_list_clear(l);
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0)
		return MNL_CB_ERROR;
	return mnl_attr_parse_nested(nest, name_attr, l);
}

static int filters_attr(const struct nlattr *a, void *data)
{
	struct ftagent_filters *f = data;
	uint16_t type = mnl_attr_get_type(a);
	int t;

	if (type == FTAGENT_CTL_A_EXCLUDE_PROCESSES)
		return parse_list(a, &f->exclude_processes);
	if (type == FTAGENT_CTL_A_EXCLUDE_PATHS)
		return parse_list(a, &f->exclude_paths);
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++) {
		if (type != toggles[t].attr)
			continue;
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		ftagent_filters_set_toggle(f, t, mnl_attr_get_u8(a));
	}
	return MNL_CB_OK;
}

int ftagent_filters_parse(const struct nlmsghdr *nlh, struct ftagent_filters *f)
{
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr) ||
	    mnl_attr_parse(nlh, sizeof(struct genlmsghdr), filters_attr, f) !=
		    MNL_CB_OK) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int filters_reply(const struct nlmsghdr *nlh, void *data)
{
	return ftagent_filters_parse(nlh, data);
}

int ftagent_get_filters(struct ftnl *ctl, struct ftagent_filters *f,
			struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	ftagent_filters_init(f);
	if (ftnl_transact(
		    ctl,
		    ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_GET_FILTERS, 0),
		    filters_reply, f, err) < 0) {
		ftagent_filters_free(f);
		return -1;
	}
	/* An empty list may come as an empty nest or not at all. */
	f->exclude_processes.set = 1;
	f->exclude_paths.set = 1;
	return 0;
}

int ftagent_set_config(struct ftnl *ctl, const struct ftagent_config *cfg,
		       struct ftnl_error *err)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req;

	req = ftnl_put_request(ctl, buf, FTAGENT_CTL_CMD_SET_CONFIG, 0);
	if (cfg->set & FTAGENT_CONFIG_HAVE_MODE)
		mnl_attr_put_u32(req, FTAGENT_CTL_A_MODE, cfg->mode);
	if (cfg->set & FTAGENT_CONFIG_HAVE_HOOKS)
		mnl_attr_put_u32(req, FTAGENT_CTL_A_HOOKS, cfg->hooks);
	if (cfg->set & FTAGENT_CONFIG_HAVE_FLUSH_INTERVAL)
		mnl_attr_put_u32(req, FTAGENT_CTL_A_FLUSH_INTERVAL_MS,
				 cfg->flush_interval_ms);
	if (cfg->set & FTAGENT_CONFIG_HAVE_RING_BUFFER_SIZE)
		mnl_attr_put_u32(req, FTAGENT_CTL_A_RING_BUFFER_SIZE,
				 cfg->ring_buffer_size);
	return ftnl_transact(ctl, req, NULL, NULL, err);
}

int ftagent_set_ring_buffer_size(struct ftnl *ctl, uint32_t bytes,
				 struct ftnl_error *err)
{
	struct ftagent_config cfg = {
		.set = FTAGENT_CONFIG_HAVE_RING_BUFFER_SIZE,
		.ring_buffer_size = bytes,
	};

	return ftagent_set_config(ctl, &cfg, err);
}
