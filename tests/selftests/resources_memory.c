// SPDX-License-Identifier: GPL-2.0
/*
 * The memory figure GET_RESOURCES gives (MEMORY_BYTES, ftctl stats
 * "Memory:") is what loading the module took, by the kernel's own books.
 *
 * A load is measured in /proc/meminfo: SUnreclaim (kmalloc, and the large
 * kmallocs a kvmalloc() of a table usually is), VmallocUsed (the tables
 * that fell back to vmalloc, and the module image) and Percpu. The event
 * channel's pages are in none of them (relay maps pages it allocated one
 * by one), so they are taken out of the module's figure, from the
 * geometry GET_RESOURCES gives; the image is taken out of the books,
 * from /proc/modules. What is left of the two must agree.
 *
 * Not exact, and not meant to be: the kernel allocates a little of its
 * own for a load (the module's kobjects, ftrace's hash entries, the
 * families), slab pages come in whole pages, and Percpu grows only when
 * a new per-CPU page is needed. TOLERANCE is for that; a figure that
 * left out one of the module's tables (the in-flight table alone is
 * 4.5 MiB) is far outside it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "ftagent_test.h"
#include "../../tools/lib/policy.h"

#define KIB		  1024LL
#define TOLERANCE_BYTES	  (256 * KIB)
#define TOLERANCE_PERCENT 3

struct books {
	long long sunreclaim, vmalloc_used, percpu;
};

static int read_books(struct books *b)
{
	char line[256];
	long long kib;
	int found = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "SUnreclaim: %lld kB", &kib) == 1) {
			b->sunreclaim = kib * KIB;
			found++;
		} else if (sscanf(line, "VmallocUsed: %lld kB", &kib) == 1) {
			b->vmalloc_used = kib * KIB;
			found++;
		} else if (sscanf(line, "Percpu: %lld kB", &kib) == 1) {
			b->percpu = kib * KIB;
			found++;
		}
	}
	fclose(f);
	return found == 3 ? 0 : -1;
}

static long long books_total(const struct books *b)
{
	return b->sunreclaim + b->vmalloc_used + b->percpu;
}

/*
 * The books once they hold still: what the test or program before left
 * to be freed later (RCU callbacks, sockets closing) must not fall into
 * the measured window. Up to 5 s, reading every 100 ms until two
 * readings a second apart differ by less than 32 KiB.
 */
static int read_settled_books(struct books *b)
{
	struct books then;
	long long d;
	int i;

	if (read_books(&then))
		return -1;
	for (i = 0; i < 50; i++) {
		usleep(100000);
		if (read_books(b))
			return -1;
		if (i % 10 != 9)
			continue;
		d = books_total(b) - books_total(&then);
		if (d > -32 * KIB && d < 32 * KIB)
			return 0;
		then = *b;
	}
	return 0;
}

/* The module's size in /proc/modules: its image, text and data. */
static long long module_image(void)
{
	char name[64];
	long long size;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld %*[^\n]", name, &size) == 2) {
		if (!strcmp(name, "ftagent")) {
			fclose(f);
			return size;
		}
	}
	fclose(f);
	return -1;
}

/* CPUs the kernel could bring up: each has a copy of per-CPU data. */
static long long possible_cpus(void)
{
	unsigned int lo, hi;
	long long n = 0;
	char sep;
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");

	if (!f)
		return sysconf(_SC_NPROCESSORS_CONF);
	/* "0-3", "0", or "0-3,8-11". */
	while (fscanf(f, "%u", &lo) == 1) {
		hi = lo;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%u", &hi) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = '\n';
		}
		n += hi - lo + 1;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n ? n : sysconf(_SC_NPROCESSORS_CONF);
}

/*
 * Whether slab objects carry debug metadata: KASAN's redzones or SLUB
 * debugging (a kmalloc-128 object then takes more than 128 bytes), or
 * kmemleak's record of every allocation. The kernel's books then hold
 * more for each object than the module allocated, by an amount no figure
 * of the module's can know (4 to 6 MiB more for the kprobe set's 30,000
 * instances on the debug tier's kernel). There only the other side is
 * checked: the figure claims nothing the books do not hold.
 */
static int slab_debug_metadata(void)
{
	long object = 0, slab = 0;
	FILE *f;

	if (!access("/sys/kernel/slab/kmemleak_object", F_OK))
		return 1;
	f = fopen("/sys/kernel/slab/kmalloc-128/object_size", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &object) != 1)
		object = 0;
	fclose(f);
	f = fopen("/sys/kernel/slab/kmalloc-128/slab_size", "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &slab) != 1)
		slab = 0;
	fclose(f);
	return object && slab && slab != object;
}

/* The check itself: @books and @ours within @allowed (above). */
static void books_match(struct __test_metadata *_metadata, long long books,
			long long ours, long long allowed)
{
	if (slab_debug_metadata()) {
		TH_LOG("slab objects carry debug metadata here: only checked "
		       "that the figure is not above the books");
		EXPECT_LE(ours - books, allowed);
		return;
	}
	EXPECT_LE(books > ours ? books - ours : ours - books, allowed);
}

static void load_and_compare(struct __test_metadata *_metadata,
			     const char *params)
{
	struct ftagent_resources res = {0};
	struct books before, after;
	long long page = sysconf(_SC_PAGESIZE);
	long long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long long image, books, ring, ours, gap, allowed;

	ASSERT_EQ(0, ft_unload_module());
	ASSERT_EQ(0, read_settled_books(&before));
	ASSERT_EQ(0, ft_reload_module(params)) TH_LOG("load with %s", params);
	ASSERT_EQ(0, read_books(&after));
	ASSERT_EQ(0, ft_get_resources(&res));
	image = module_image();
	ASSERT_LT(0, image);

	/* relay: each online CPU's sub-buffers, in whole pages. */
	ring = cpus * (((long long)res.subbuf_size * res.n_subbufs + page - 1) /
		       page * page);
	books = books_total(&after) - books_total(&before) - image;
	ours = (long long)res.memory_bytes - ring;
	gap = books > ours ? books - ours : ours - books;
	allowed = TOLERANCE_BYTES + books * TOLERANCE_PERCENT / 100;
	TH_LOG("%s: the kernel's books %lld KiB (SUnreclaim %+lld, VmallocUsed "
	       "%+lld, Percpu %+lld, less the image %lld), the module's figure "
	       "%lld KiB less its event channel %lld: %lld KiB; apart by %lld "
	       "KiB, %lld allowed",
	       params, books / KIB,
	       (after.sunreclaim - before.sunreclaim) / KIB,
	       (after.vmalloc_used - before.vmalloc_used) / KIB,
	       (after.percpu - before.percpu) / KIB, image / KIB,
	       (long long)res.memory_bytes / KIB, ring / KIB, ours / KIB,
	       gap / KIB, allowed / KIB);
	ftagent_resources_free(&res);
	books_match(_metadata, books, ours, allowed);
}

/*
 * Each test loads the module twice or more: with the kprobe set on the
 * debug kernel a load takes a minute or more, past the harness's 30 s.
 */
FIXTURE(memory){};
FIXTURE_SETUP(memory)
{
	if (!getenv("FTAGENT_KO"))
		SKIP(return, "FTAGENT_KO is not set: no module file to load");
}
FIXTURE_TEARDOWN(memory)
{
	/* Leave the module as the runner loaded it, for the next test. */
	if (!_metadata->skip)
		ft_reload_module(NULL);
}

/* The runner's parameters: its hook set, the default tables. */
TEST_F_TIMEOUT(memory, a_default_load_is_what_the_figure_says, 600)
{
	FT_RETURN_IF_SETUP_SKIPPED();
	load_and_compare(_metadata, "");
}

/* Bigger counter tables and channel: the figure follows the parameters. */
TEST_F_TIMEOUT(memory, a_load_with_larger_tables_is_what_the_figure_says, 600)
{
	FT_RETURN_IF_SETUP_SKIPPED();
	load_and_compare(_metadata,
			 "kernel_counters=65536 ring_buffer_size=8388608");
}

/* 10,000 rules of one prefix each: the set's rules, indexes and hits. */
static int install_prefix_rules(unsigned int n, struct ftnl_error *err)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl nl;
	unsigned int i;
	uint64_t gen;
	int rc;

	ftagent_policy_spec_init(&p);
	for (i = 0; i < n; i++) {
		r = ftagent_policy_spec_add(&p);
		if (!r)
			abort();
		snprintf(r->name, sizeof(r->name), "net-%u", i);
		r->ops = 1u << FTAGENT_OP_CONNECT;
		r->action = FTAGENT_ACTION_DENY;
		r->set |= FTAGENT_RULE_SET_ADDR | FTAGENT_RULE_SET_PREFIX_LEN;
		r->addr_len = 4;
		r->addr[0] = 10;
		r->addr[1] = i / 256;
		r->addr[2] = i % 256;
		r->prefix_len = 24;
	}
	rc = ftnl_open(&nl, FTAGENT_GENL_CTL_NAME, err) < 0 ? -1 : 0;
	if (!rc) {
		rc = ftagent_set_policy(&nl, &p, &gen, err);
		ftnl_close(&nl);
	}
	ftagent_policy_spec_free(&p);
	return rc;
}

/*
 * A rule set installed after the load: what the figure grows by is what
 * the kernel's books grow by.
 */
TEST_F_TIMEOUT(memory, a_rule_set_is_in_the_figure, 600)
{
	struct ftagent_resources before_res = {0}, after_res = {0};
	struct books before, after;
	struct ftnl_error err;
	long long books, ours, gap, allowed;

	FT_RETURN_IF_SETUP_SKIPPED();
	ASSERT_EQ(0, ft_reload_module(NULL));
	ASSERT_EQ(0, ft_get_resources(&before_res));
	ASSERT_EQ(0, read_settled_books(&before));
	ASSERT_EQ(0, install_prefix_rules(10000, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, read_books(&after));
	ASSERT_EQ(0, ft_get_resources(&after_res));

	books = books_total(&after) - books_total(&before);
	ours = (long long)after_res.memory_bytes -
	       (long long)before_res.memory_bytes;
	gap = books > ours ? books - ours : ours - books;
	/*
	 * Each rule has a hit counter per possible CPU (8 bytes), which
	 * Percpu shows only if the allocator had to populate a page for
	 * them: allowed for.
	 */
	allowed = TOLERANCE_BYTES + books * TOLERANCE_PERCENT / 100 +
		  8LL * 10001 * possible_cpus();
	TH_LOG("10,000 rules: the kernel's books %+lld KiB, the module's "
	       "figure %+lld KiB; apart by %lld KiB, %lld allowed",
	       books / KIB, ours / KIB, gap / KIB, allowed / KIB);
	ftagent_resources_free(&before_res);
	ftagent_resources_free(&after_res);
	/* A set of this size holds megabytes: a figure without it fails. */
	EXPECT_LT(1024 * KIB, ours);
	books_match(_metadata, books, ours, allowed);
}

TEST_HARNESS_MAIN
