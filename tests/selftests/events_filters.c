// SPDX-License-Identifier: GPL-2.0
/*
 * SET_FILTERS / GET_FILTERS: the defaults at load, lists at their limits
 * set and read back byte for byte, a request changes only what it names,
 * and a bad request (a name too long, too many names, an empty name, a
 * toggle other than 0/1) is refused whole with a reason while the filters
 * in force stay. Both commands need CAP_NET_ADMIN.
 */
#include "kselftest_harness.h"
#include "events_test.h"

FIXTURE(filters)
{
	int unused;
};

FIXTURE_SETUP(filters)
{
}

FIXTURE_TEARDOWN(filters)
{
	EXPECT_EQ(0, ev_reset_filters());
}

/* Runs first: nothing has changed the filters since the module loaded. */
TEST_F(filters, defaults_at_load)
{
	struct ftagent_filters f, defaults;

	ASSERT_EQ(0, ev_get_filters(&f));
	ASSERT_EQ(0, ftagent_filters_defaults(&defaults));
	EXPECT_TRUE(ftagent_filters_equal(&f, &defaults));
	ftagent_filters_free(&f);
	ftagent_filters_free(&defaults);
}

/* A name of @len bytes, unique by @i, from bytes 0x01..0xff. */
static void fill_name(char *buf, size_t len, unsigned int i)
{
	size_t k;

	for (k = 0; k < len; k++)
		buf[k] = (char)(1 + (i * 7 + k) % 255);
	if (len)
		buf[0] = '/';
	if (len > 1)
		buf[1] = (char)('A' + i % 26);
}

static void add_names(struct ftagent_filter_list *l, size_t n, size_t len)
{
	char buf[2048];
	size_t i;

	ftagent_filter_list_clear(l);
	for (i = 0; i < n; i++) {
		fill_name(buf, len, i);
		buf[2] = (char)('a' + i / 26);
		ftagent_filter_list_add(l, buf, len);
	}
}

TEST_F(filters, lists_at_their_limits_read_back_exactly)
{
	char buf[FTAGENT_EXCLUDE_PATH_LEN_MAX];
	struct ftagent_filters f, got;
	struct ftnl_error err;
	int t;

	ftagent_filters_init(&f);
	for (t = 0; t < __FTAGENT_FILTER_TOGGLES; t++)
		ftagent_filters_set_toggle(&f, t, t % 2);
	add_names(&f.exclude_processes, FTAGENT_EXCLUDE_PROCESSES_MAX,
		  FTAGENT_COMM_LEN - 1);
	/*
	 * 64 paths, one of 1 KiB: as many long ones as one nest holds (its
	 * length is 16 bits), and the reply is larger than a dump message.
	 */
	add_names(&f.exclude_paths, FTAGENT_EXCLUDE_PATHS_MAX - 1, 1000);
	fill_name(buf, FTAGENT_EXCLUDE_PATH_LEN_MAX, 99);
	ftagent_filter_list_add(&f.exclude_paths, buf,
				FTAGENT_EXCLUDE_PATH_LEN_MAX);
	ASSERT_EQ(0, ev_set_filters(&f, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ev_get_filters(&got));
	EXPECT_TRUE(ftagent_filters_equal(&f, &got));
	ftagent_filters_free(&got);
	ftagent_filters_free(&f);
}

TEST_F(filters, a_request_changes_only_what_it_names)
{
	struct ftagent_filters f, got, want;

	ASSERT_EQ(0, ev_exclude(1, "/ftef-only"));
	ASSERT_EQ(0, ev_set_toggle(FTAGENT_FILTER_NET_UDP, 0));
	ASSERT_EQ(0, ftagent_filters_defaults(&want));
	ftagent_filters_set_toggle(&want, FTAGENT_FILTER_NET_UDP, 0);
	ftagent_filter_list_add(&want.exclude_paths, "/ftef-only", 10);
	ASSERT_EQ(0, ev_get_filters(&got));
	EXPECT_TRUE(ftagent_filters_equal(&want, &got));
	ftagent_filters_free(&got);
	/* An empty nest clears one list; the other stays. */
	ftagent_filters_init(&f);
	ftagent_filter_list_clear(&f.exclude_processes);
	ASSERT_EQ(0, ev_set_filters(&f, &(struct ftnl_error){0}));
	ftagent_filter_list_clear(&want.exclude_processes);
	ASSERT_EQ(0, ev_get_filters(&got));
	EXPECT_TRUE(ftagent_filters_equal(&want, &got));
	ftagent_filters_free(&got);
	ftagent_filters_free(&want);
}

/*
 * The reasons the module gives (kmod/genl_ctl.c). A test of a refusal
 * checks the words, so a refusal for another reason does not pass.
 */
#define MSG_TOGGLE    "a toggle is 0 (off) or 1 (on)"
#define MSG_COMM      "a process name is 1 to 15 bytes, no NUL inside"
#define MSG_COMM_MANY "at most 64 exclude_processes"
#define MSG_PATH      "a path prefix is 1 to 1024 bytes, no NUL inside"
#define MSG_PATH_MANY "at most 64 exclude_paths"
#define MSG_PATH_NEST                                                          \
	"exclude_paths together exceed one netlink nest "                      \
	"(FTAGENT_EXCLUDE_PATHS_NEST_MAX)"

struct bad {
	const char *msg;
	int toggle;		 /* NET_UDP value; -1: not sent */
	size_t n_comm, len_comm; /* n names of len bytes; n 0: not sent */
	size_t n_path, len_path;
};

static const struct bad bads[] = {
	{MSG_TOGGLE, 2, 0, 0, 0, 0},
	{MSG_TOGGLE, 255, 1, 5, 0, 0},
	{MSG_COMM, 0, 3, FTAGENT_COMM_LEN, 0, 0},
	{MSG_COMM, 0, 2, 0, 1, 8},
	{MSG_COMM_MANY, 0, FTAGENT_EXCLUDE_PROCESSES_MAX + 1, 4, 0, 0},
	{MSG_PATH, 0, 1, 4, 2, FTAGENT_EXCLUDE_PATH_LEN_MAX + 1},
	{MSG_PATH, 0, 0, 0, 3, 0},
	{MSG_PATH_MANY, 0, 0, 0, FTAGENT_EXCLUDE_PATHS_MAX + 1, 8},
};

TEST_F(filters, bad_requests_are_refused_whole)
{
	struct ftagent_filters base, f, got;
	struct ftnl_error err;
	size_t i;

	/* Not the defaults, so "unchanged" can't be mistaken for a reset. */
	ftagent_filters_init(&base);
	ftagent_filters_set_toggle(&base, FTAGENT_FILTER_NET_TCP, 0);
	add_names(&base.exclude_processes, 2, 6);
	add_names(&base.exclude_paths, 2, 20);
	ASSERT_EQ(0, ev_set_filters(&base, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ev_get_filters(&got));
	ftagent_filters_free(&base);
	base = got;

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];

		ftagent_filters_init(&f);
		/* Valid changes ride along: they must not happen either. */
		ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_TCP, 1);
		ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_IPV6, 0);
		if (b->toggle >= 0)
			ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_UDP,
						   b->toggle);
		if (b->n_comm)
			add_names(&f.exclude_processes, b->n_comm, b->len_comm);
		if (b->n_path)
			add_names(&f.exclude_paths, b->n_path, b->len_path);
		EXPECT_EQ(-1, ev_set_filters(&f, &err)) TH_LOG("case %zu", i);
		EXPECT_EQ(EINVAL, err.err) TH_LOG("case %zu", i);
		EXPECT_STREQ(b->msg, err.msg) TH_LOG("case %zu", i);
		ftagent_filters_free(&f);
		ASSERT_EQ(0, ev_get_filters(&got));
		EXPECT_TRUE(ftagent_filters_equal(&base, &got))
		TH_LOG("case %zu changed the filters", i);
		ftagent_filters_free(&got);
	}
	ftagent_filters_free(&base);
}

/*
 * In a child without CAP_NET_ADMIN: the errno of GET or SET. Leaving uid 0
 * clears the effective capabilities (capabilities(7)).
 */
static int unprivileged(int set)
{
	struct ftagent_filters f;
	struct ftnl_error err;
	struct ftnl nl;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 100;
	if (ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err) < 0)
		return 101;
	ftagent_filters_init(&f);
	if (set) {
		ftagent_filters_set_toggle(&f, FTAGENT_FILTER_NET_TCP, 0);
		return ftagent_set_filters(&nl, &f, &err) < 0 ? err.err : 0;
	}
	return ftagent_get_filters(&nl, &f, &err) < 0 ? err.err : 0;
}

/*
 * Entries sent without their NUL fit the request's nest, but GET_FILTERS
 * sends each back with a NUL and padding: 63 of 1 KiB and one of 760
 * bytes take 65532 bytes in, 65788 out, past a nest's 16-bit length.
 */
TEST_F(filters, paths_that_would_not_nest_in_the_reply_are_refused)
{
	static char buf[128 << 10];
	char name[FTAGENT_EXCLUDE_PATH_LEN_MAX];
	struct ftagent_filters before, after;
	struct ftnl_error err;
	struct nlmsghdr *req;
	struct nlattr *nest;
	struct ftnl nl;
	int i, sz = 1 << 20;

	ASSERT_EQ(0, ev_get_filters(&before));
	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err));
	setsockopt(mnl_socket_get_fd(nl.sock), SOL_SOCKET, SO_SNDBUF, &sz,
		   sizeof(sz));
	req = ftnl_put_request(&nl, buf, FTAGENT_CTL_CMD_SET_FILTERS, 0);
	nest = mnl_attr_nest_start(req, FTAGENT_CTL_A_EXCLUDE_PATHS);
	for (i = 0; i < FTAGENT_EXCLUDE_PATHS_MAX; i++) {
		fill_name(name, sizeof(name), i);
		name[2] = (char)('a' + i / 26);
		mnl_attr_put(req, FTAGENT_CTL_A_NAME,
			     i < 63 ? FTAGENT_EXCLUDE_PATH_LEN_MAX : 760, name);
	}
	mnl_attr_nest_end(req, nest);
	ASSERT_EQ(65532, nest->nla_len);
	EXPECT_EQ(-1, ftnl_transact(&nl, req, NULL, NULL, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ(MSG_PATH_NEST, err.msg);
	ftnl_close(&nl);
	ASSERT_EQ(0, ev_get_filters(&after));
	EXPECT_TRUE(ftagent_filters_equal(&before, &after));
	ftagent_filters_free(&before);
	ftagent_filters_free(&after);
}

/* A name with a NUL inside would be cut short silently: refused. */
TEST_F(filters, a_nul_inside_a_name_is_refused)
{
	static const char cut[] = "ftag\0entd";
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct ftagent_filters before, after;
	struct ftnl_error err;
	struct nlmsghdr *req;
	struct nlattr *nest;
	struct ftnl nl;

	ASSERT_EQ(0, ev_get_filters(&before));
	ASSERT_EQ(0, ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, &err));
	req = ftnl_put_request(&nl, buf, FTAGENT_CTL_CMD_SET_FILTERS, 0);
	nest = mnl_attr_nest_start(req, FTAGENT_CTL_A_EXCLUDE_PROCESSES);
	mnl_attr_put(req, FTAGENT_CTL_A_NAME, sizeof(cut), cut);
	mnl_attr_nest_end(req, nest);
	EXPECT_EQ(-1, ftnl_transact(&nl, req, NULL, NULL, &err));
	EXPECT_EQ(EINVAL, err.err);
	EXPECT_STREQ(MSG_COMM, err.msg);
	ftnl_close(&nl);
	ASSERT_EQ(0, ev_get_filters(&after));
	EXPECT_TRUE(ftagent_filters_equal(&before, &after));
	ftagent_filters_free(&before);
	ftagent_filters_free(&after);
}

TEST_F(filters, both_need_cap_net_admin)
{
	struct ftagent_filters f, defaults;
	int set, status;
	pid_t pid;

	for (set = 0; set < 2; set++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(unprivileged(set));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(EPERM, WEXITSTATUS(status)) TH_LOG("set=%d", set);
	}
	ASSERT_EQ(0, ev_get_filters(&f));
	ASSERT_EQ(0, ftagent_filters_defaults(&defaults));
	EXPECT_TRUE(ftagent_filters_equal(&f, &defaults));
	ftagent_filters_free(&f);
	ftagent_filters_free(&defaults);
}

TEST_HARNESS_MAIN
