// SPDX-License-Identifier: GPL-2.0
/*
 * Serving the Prometheus page (metrics.h): the listen address, and
 * libmicrohttpd, opened with dlopen() when a page is first asked for,
 * not linked: it brings GnuTLS and its chain, megabytes of mappings a
 * daemon without [metrics] listen would carry for nothing. The header
 * still gives the types and constants; the few functions used come
 * through the table below. metrics.c renders the page itself.
 */
#include <dlfcn.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "ftagentd.h"
#include "metrics.h"

/* A scrape is one connection; a few more for the curious, no more. */
#define FTD_METRICS_CONNECTIONS 16
/* Seconds a connection may sit idle before it is closed. */
#define FTD_METRICS_TIMEOUT_S 10
#define CONTENT_TYPE	      "text/plain; version=0.0.4; charset=utf-8"

/* The soname of the ABI microhttpd.h describes (Debian's libmicrohttpd12). */
#define MHD_SONAME "libmicrohttpd.so.12"

/* The functions used, typed from the header; filled once, never closed. */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_create_response_from_buffer) *create_response;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

#define MHD_OFF(field) offsetof(__typeof__(mhd), field)
static const struct {
	size_t off;
	const char *name;
} mhd_syms[] = {
	{MHD_OFF(start_daemon), "MHD_start_daemon"},
	{MHD_OFF(stop_daemon), "MHD_stop_daemon"},
	{MHD_OFF(run), "MHD_run"},
	{MHD_OFF(get_timeout), "MHD_get_timeout"},
	{MHD_OFF(get_daemon_info), "MHD_get_daemon_info"},
	{MHD_OFF(create_response), "MHD_create_response_from_buffer"},
	{MHD_OFF(add_response_header), "MHD_add_response_header"},
	{MHD_OFF(queue_response), "MHD_queue_response"},
	{MHD_OFF(destroy_response), "MHD_destroy_response"},
};

/*
 * Open libmicrohttpd and fill mhd. 0, or -1 with @err naming the library.
 * Only the loop's thread starts pages, so no lock.
 */
static int mhd_load(char *err, size_t err_size)
{
	static void *lib;
	void *h, *f;
	size_t i;

	if (lib)
		return 0;
	h = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, err_size,
			 "%s (the page needs libmicrohttpd; install "
			 "libmicrohttpd12)",
			 dlerror());
		return -1;
	}
	for (i = 0; i < sizeof(mhd_syms) / sizeof(mhd_syms[0]); i++) {
		f = dlsym(h, mhd_syms[i].name);
		if (!f) {
			snprintf(err, err_size, "%s: no %s: %s", MHD_SONAME,
				 mhd_syms[i].name, dlerror());
			dlclose(h);
			return -1;
		}
		memcpy((char *)&mhd + mhd_syms[i].off, &f, sizeof(f));
	}
	lib = h;
	return 0;
}

__attribute__((format(printf, 3, 4))) static int fail(char *err,
						      size_t err_size,
						      const char *fmt, ...)
{
	va_list ap;

	if (err && err_size) {
		va_start(ap, fmt);
		vsnprintf(err, err_size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int ftd_metrics_parse_listen(const char *listen, struct sockaddr_storage *ss,
			     socklen_t *len, char *err, size_t err_size)
{
	const char *host, *host_end, *port_str, *s;
	char addr[INET6_ADDRSTRLEN + 1];
	unsigned long port = 0;
	int v6 = 0;

	memset(ss, 0, sizeof(*ss));
	if (!listen || !*listen)
		return fail(err, err_size,
			    "no listen address: host:port, e.g. "
			    "127.0.0.1:9465");
	if (listen[0] == '[') {
		v6 = 1;
		host = listen + 1;
		host_end = strchr(host, ']');
		if (!host_end)
			return fail(err, err_size,
				    "listen \"%s\": no ']' after the IPv6 "
				    "address",
				    listen);
		if (host_end[1] != ':')
			return fail(err, err_size,
				    "listen \"%s\": a port must follow, e.g. "
				    "[::1]:9465",
				    listen);
		port_str = host_end + 2;
	} else {
		host = listen;
		host_end = strrchr(listen, ':');
		if (!host_end)
			return fail(err, err_size,
				    "listen \"%s\": no port; host:port, e.g. "
				    "127.0.0.1:9465",
				    listen);
		if (memchr(listen, ':', (size_t)(host_end - listen)))
			return fail(err, err_size,
				    "listen \"%s\": an IPv6 address goes in "
				    "brackets, e.g. [::1]:9465",
				    listen);
		port_str = host_end + 1;
	}
	for (s = port_str; *s >= '0' && *s <= '9' && s - port_str < 6; s++)
		port = port * 10 + (unsigned long)(*s - '0');
	if (s == port_str || *s || port < 1 || port > 65535)
		return fail(err, err_size,
			    "listen \"%s\": the port must be a number from 1 "
			    "to 65535",
			    listen);
	if (host_end == host)
		return fail(err, err_size,
			    "listen \"%s\": no address before the port "
			    "(0.0.0.0 means every IPv4 address)",
			    listen);
	if ((size_t)(host_end - host) >= sizeof(addr))
		goto not_ip;
	memcpy(addr, host, (size_t)(host_end - host));
	addr[host_end - host] = '\0';
	if (v6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1)
			goto not_ip;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*sin6);
	} else {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1)
			goto not_ip;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*len = sizeof(*sin);
	}
	return 0;
not_ip:
	memset(ss, 0, sizeof(*ss));
	return fail(err, err_size,
		    "listen \"%s\": \"%.*s\" is not an IP%s address; names "
		    "are not resolved (use 127.0.0.1 or [::1])",
		    listen, (int)(host_end - host), host, v6 ? "v6" : "");
}

struct ftd_metrics_server {
	struct MHD_Daemon *mhd;
	struct ftagentd *d;
	int started; /* atomic: the logger's messages are no longer kept */
	char start_error[256];
};

/* libmicrohttpd's messages: the first one while starting says why. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct ftd_metrics_server *s = cls;
	size_t n;

	if (__atomic_load_n(&s->started, __ATOMIC_ACQUIRE) || s->start_error[0])
		return;
	vsnprintf(s->start_error, sizeof(s->start_error), fmt, ap);
	n = strlen(s->start_error);
	while (n &&
	       (s->start_error[n - 1] == '\n' || s->start_error[n - 1] == '.'))
		s->start_error[--n] = '\0';
}

static struct MHD_Response *text(const char *msg)
{
	return mhd.create_response(strlen(msg), (void *)msg,
				   MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn,
			     const char *url, const char *method,
			     const char *version, const char *upload_data,
			     size_t *upload_data_size, void **con_cls)
{
	struct ftd_metrics_server *s = cls;
	struct MHD_Response *r;
	unsigned int status;
	enum MHD_Result ret;
	size_t len = 0;
	char *page;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = text("only GET and HEAD\n");
		if (r)
			mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW,
						"GET, HEAD");
	} else if (strcmp(url, "/metrics")) {
		status = MHD_HTTP_NOT_FOUND;
		r = text("not found: the page is /metrics\n");
	} else {
		if (s->d->refresh)
			s->d->refresh(s->d->refresh_arg);
		pthread_mutex_lock(&s->d->col.lock);
		page = ftd_metrics_render(s->d, &len);
		pthread_mutex_unlock(&s->d->col.lock);
		if (page) {
			status = MHD_HTTP_OK;
			r = mhd.create_response(len, page,
						MHD_RESPMEM_MUST_FREE);
			if (!r)
				free(page);
			else
				mhd.add_response_header(
					r, MHD_HTTP_HEADER_CONTENT_TYPE,
					CONTENT_TYPE);
		} else {
			status = MHD_HTTP_INTERNAL_SERVER_ERROR;
			r = text("out of memory\n");
		}
	}
	if (!r)
		return MHD_NO;
	ret = mhd.queue_response(conn, status, r);
	mhd.destroy_response(r);
	return ret;
}

struct ftd_metrics_server *ftd_metrics_start(struct ftagentd *d,
					     const char *listen, char *err,
					     size_t err_size)
{
	/* No thread: the caller's loop polls ftd_metrics_fd(). */
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct ftd_metrics_server *s;
	struct sockaddr_storage ss;
	char why[200];
	socklen_t sl;
	uint16_t port;

	if (ftd_metrics_parse_listen(listen, &ss, &sl, err, err_size) < 0)
		return NULL;
	if (mhd_load(why, sizeof(why)) < 0) {
		fail(err, err_size, "listen \"%s\": %s", listen, why);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		fail(err, err_size, "listen \"%s\": out of memory", listen);
		return NULL;
	}
	s->d = d;
	if (ss.ss_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	} else {
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	}
	/* The logger must come first to catch every message. */
	s->mhd = mhd.start_daemon(
		flags, port, NULL, NULL, serve, s, MHD_OPTION_EXTERNAL_LOGGER,
		mhd_log, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)FTD_METRICS_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)FTD_METRICS_TIMEOUT_S, MHD_OPTION_END);
	if (!s->mhd) {
		fail(err, err_size, "listen \"%s\": %s", listen,
		     s->start_error[0] ? s->start_error
				       : "libmicrohttpd could not start");
		free(s);
		return NULL;
	}
	__atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
	return s;
}

int ftd_metrics_fd(const struct ftd_metrics_server *s)
{
	const union MHD_DaemonInfo *info =
		mhd.get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);

	return info ? info->epoll_fd : -1;
}

void ftd_metrics_run(struct ftd_metrics_server *s)
{
	mhd.run(s->mhd);
}

int ftd_metrics_timeout_ms(const struct ftd_metrics_server *s)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (mhd.get_timeout(s->mhd, &ms) != MHD_YES)
		return -1;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

void ftd_metrics_stop(struct ftd_metrics_server *s)
{
	if (!s)
		return;
	mhd.stop_daemon(s->mhd);
	free(s);
}
