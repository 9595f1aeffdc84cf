// SPDX-License-Identifier: GPL-2.0
/*
 * The audit trail: what the writer (daemon/audit.c) leaves verifies
 * (tools/lib/audit_chain.c), and each way of tampering with it is caught
 * at the right record: a byte changed, a record deleted, two swapped,
 * the file cut short, a rotation boundary broken. A crash's cut line is
 * accepted only once the writer has named it; records that could not be
 * written are said; files are 0640 and the ftagent group's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../daemon/audit.h"
#include "../../daemon/group.h"
#include "../../tools/lib/audit_chain.h"
#include "../../tools/lib/set_digest.h"

#define VERDICTS 20

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/ftagent-audit-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void config(struct ftagentd_config *cfg, uint64_t rotate)
{
	ftagentd_config_defaults(cfg);
	cfg->audit.enabled = 1;
	snprintf(cfg->audit.dir, sizeof(cfg->audit.dir), "%s", dir);
	cfg->audit.rotate_size = rotate;
	cfg->audit.fsync_batch = 4;
}

/* A trail: "start" then @n verdict-like records. */
static void write_trail(int n, uint64_t rotate)
{
	struct ftagentd_config cfg;
	struct ftd_audit a;
	char rec[128];
	int i;

	config(&cfg, rotate);
	ftd_audit_init(&a);
	assert_int_equal(0, ftd_audit_open(&a, &cfg));
	for (i = 0; i < n; i++) {
		snprintf(rec, sizeof(rec),
			 "{\"type\":\"verdict\",\"pid\":%d,\"padding\":\"%0*"
			 "d\"}",
			 1000 + i, 40, i);
		assert_int_equal(0, ftd_audit_append(&a,
						     1700000000000000000ull +
							     (uint64_t)i,
						     "verdict", rec));
	}
	assert_int_equal(0, a.errors);
	ftd_audit_close(&a);
}

/* Verify everything in dir; 0 intact, -1 with v filled. */
static int verify(struct ftagent_audit_verify *v)
{
	char **paths;
	size_t n, i;
	int rc = 0;

	ftagent_audit_verify_init(v);
	assert_int_equal(0, ftagent_audit_list(dir, &paths, &n));
	for (i = 0; i < n && rc == 0; i++)
		rc = ftagent_audit_verify_file(v, paths[i]);
	if (rc == 0)
		rc = ftagent_audit_verify_end(v);
	ftagent_audit_list_free(paths, n);
	return rc;
}

static char *current(void)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, FTAGENT_AUDIT_CURRENT);
	return path;
}

/* The file's lines, and putting them back (changed). */
static size_t read_lines(const char *path, char lines[][512], size_t max)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	assert_non_null(f);
	while (n < max && fgets(lines[n], 512, f))
		n++;
	fclose(f);
	return n;
}

static void write_lines(const char *path, char lines[][512], size_t n)
{
	FILE *f = fopen(path, "w");
	size_t i;

	assert_non_null(f);
	for (i = 0; i < n; i++)
		fputs(lines[i], f);
	fclose(f);
}

static char lines[64][512];

static void an_intact_trail_verifies(void **state)
{
	struct ftagent_audit_verify v;

	(void)state;
	write_trail(VERDICTS, 64 << 20);
	assert_int_equal(0, verify(&v));
	assert_int_equal(VERDICTS + 1, v.records);
	assert_int_equal(1, v.first_seq);
	assert_int_equal(VERDICTS + 1, v.last_seq);
	assert_int_equal(0, v.mid_chain);
}

static void a_changed_byte_is_caught_at_its_record(void **state)
{
	struct ftagent_audit_verify v;
	size_t n;

	(void)state;
	write_trail(VERDICTS, 64 << 20);
	n = read_lines(current(), lines, 64);
	/* pid 1003 becomes 1004 in seq 5 (line 5). */
	assert_non_null(strstr(lines[4], "\"pid\":1003"));
	strstr(lines[4], "\"pid\":1003")[9] = '4';
	write_lines(current(), lines, n);
	assert_int_equal(-1, verify(&v));
	assert_int_equal(5, v.bad_line);
	assert_string_equal(current(), v.bad_file);
	assert_non_null(strstr(v.bad_why, "hash does not match"));
}

static void a_deleted_record_is_caught(void **state)
{
	struct ftagent_audit_verify v;
	size_t n;

	(void)state;
	write_trail(VERDICTS, 64 << 20);
	n = read_lines(current(), lines, 64);
	memmove(&lines[4], &lines[5], (n - 5) * sizeof(lines[0]));
	write_lines(current(), lines, n - 1);
	assert_int_equal(-1, verify(&v));
	/* Line 5 now holds seq 6, which follows seq 4. */
	assert_int_equal(5, v.bad_line);
	assert_int_equal(6, v.bad_seq);
	assert_non_null(strstr(v.bad_why, "seq 6 follows seq 4"));
}

static void swapped_records_are_caught(void **state)
{
	struct ftagent_audit_verify v;
	char tmp[512];
	size_t n;

	(void)state;
	write_trail(VERDICTS, 64 << 20);
	n = read_lines(current(), lines, 64);
	memcpy(tmp, lines[6], sizeof(tmp));
	memcpy(lines[6], lines[7], sizeof(tmp));
	memcpy(lines[7], tmp, sizeof(tmp));
	write_lines(current(), lines, n);
	assert_int_equal(-1, verify(&v));
	assert_int_equal(7, v.bad_line);
	assert_int_equal(8, v.bad_seq);
}

static void a_forged_seq_with_a_good_hash_breaks_prev(void **state)
{
	struct ftagent_audit_verify v;
	char hash[FTAGENT_AUDIT_HEX_LEN + 1], *buf = NULL;
	size_t n, cap = 0;

	(void)state;
	write_trail(VERDICTS, 64 << 20);
	n = read_lines(current(), lines, 64);
	/* Line 10 rewritten with a valid hash of its own, but a made-up prev. */
	assert_true(ftagent_audit_line(&buf, &cap, 10, 1, "verdict", "{}",
				       ftagent_audit_genesis, hash) > 0);
	snprintf(lines[9], sizeof(lines[9]), "%s", buf);
	free(buf);
	write_lines(current(), lines, n);
	assert_int_equal(-1, verify(&v));
	assert_int_equal(10, v.bad_line);
	assert_non_null(strstr(v.bad_why, "prev does not match"));
}

static void a_cut_file_fails_until_the_writer_names_the_cut(void **state)
{
	struct ftagent_audit_verify v;
	struct ftagentd_config cfg;
	struct ftd_audit a;
	struct stat st;
	json_object *rec, *m;
	size_t n;

	(void)state;
	write_trail(VERDICTS, 64 << 20);
	assert_int_equal(0, stat(current(), &st));
	/* A crash in the middle of the last line. */
	assert_int_equal(0, truncate(current(), st.st_size - 30));
	assert_int_equal(-1, verify(&v));
	assert_int_equal(VERDICTS + 1, v.bad_line);
	assert_non_null(strstr(v.bad_why, "cut short"));
	assert_non_null(strstr(v.bad_why, "no \"damaged\" record"));

	/* The writer resumes: the cut line stays, named, and the chain goes on. */
	config(&cfg, 64 << 20);
	ftd_audit_init(&a);
	assert_int_equal(0, ftd_audit_open(&a, &cfg));
	assert_int_equal(1, a.damaged);
	assert_int_equal(VERDICTS + 2,
			 a.seq); /* seq 21 was lost: damaged, start */
	assert_int_equal(0, ftd_audit_append(&a, 1, "verdict", "{}"));
	ftd_audit_close(&a);
	assert_int_equal(0, verify(&v));
	assert_int_equal(1, v.damaged_accounted);
	n = read_lines(current(), lines, 64);
	assert_int_equal(VERDICTS + 4, n);
	rec = json_tokener_parse(lines[VERDICTS + 1]);
	assert_non_null(rec);
	assert_true(json_object_object_get_ex(rec, "kind", &m));
	assert_string_equal("damaged", json_object_get_string(m));
	json_object_put(rec);

	/* Forging the cut line now is caught: its SHA-256 is on record. */
	lines[VERDICTS][0] = 'X';
	write_lines(current(), lines, n);
	assert_int_equal(-1, verify(&v));
	assert_int_equal(VERDICTS + 1, v.bad_line);
}

static void the_chain_carries_across_rotation(void **state)
{
	struct ftagent_audit_verify v;
	char **paths, cmd[600];
	size_t n;

	(void)state;
	/* The smallest rotate_size the config takes: 64 KiB; ~150 bytes a
	 * record, so 1500 records make a few files. */
	write_trail(1500, 64 << 10);
	assert_int_equal(0, ftagent_audit_list(dir, &paths, &n));
	assert_true(n >= 3);
	assert_non_null(strstr(paths[n - 1], FTAGENT_AUDIT_CURRENT));
	assert_int_equal(0, verify(&v));
	assert_int_equal(n, v.files);
	/* 1500 verdicts, start, and a "rotated" record per new file. */
	assert_int_equal(1500 + 1 + (n - 1), v.records);

	/* Without the first file the chain starts mid-way: said, not failed. */
	snprintf(cmd, sizeof(cmd), "mv %s %s.aside", paths[0], paths[0]);
	assert_int_equal(0, system(cmd));
	assert_int_equal(0, verify(&v));
	assert_int_equal(1, v.mid_chain);
	snprintf(cmd, sizeof(cmd), "mv %s.aside %s", paths[0], paths[0]);
	assert_int_equal(0, system(cmd));

	/* A file taken out of the middle breaks the chain at the next one. */
	snprintf(cmd, sizeof(cmd), "mv %s %s.aside", paths[1], paths[1]);
	assert_int_equal(0, system(cmd));
	assert_int_equal(-1, verify(&v));
	assert_string_equal(paths[2], v.bad_file);
	assert_int_equal(1, v.bad_line);
	snprintf(cmd, sizeof(cmd), "mv %s.aside %s", paths[1], paths[1]);
	assert_int_equal(0, system(cmd));

	/* The last record of a rotated file removed: caught at the boundary. */
	snprintf(cmd, sizeof(cmd), "sed -i '$d' %s", paths[0]);
	assert_int_equal(0, system(cmd));
	assert_int_equal(-1, verify(&v));
	assert_string_equal(paths[1], v.bad_file);
	assert_int_equal(1, v.bad_line);
	ftagent_audit_list_free(paths, n);
}

static void a_restart_resumes_the_chain(void **state)
{
	struct ftagent_audit_verify v;

	(void)state;
	write_trail(5, 64 << 20);
	write_trail(5, 64 << 20);
	assert_int_equal(0, verify(&v));
	assert_int_equal(12, v.records); /* two starts, ten verdicts */
}

static void records_that_could_not_be_written_are_said(void **state)
{
	struct ftagent_audit_verify v;
	struct ftagentd_config cfg;
	struct ftd_audit a;
	int good;
	size_t n;

	(void)state;
	config(&cfg, 64 << 20);
	ftd_audit_init(&a);
	assert_int_equal(0, ftd_audit_open(&a, &cfg));
	/* A descriptor that refuses writes, as a full disk would. */
	good = a.fd;
	a.fd = open("/dev/null", O_RDONLY);
	assert_int_equal(-1, ftd_audit_append(&a, 1, "verdict", "{}"));
	assert_int_equal(-1, ftd_audit_append(&a, 2, "verdict", "{}"));
	assert_int_equal(2, a.lost);
	assert_int_equal(2, a.errors);
	assert_non_null(strstr(a.error, "write"));
	close(a.fd);
	a.fd = good;
	assert_int_equal(0, ftd_audit_append(&a, 3, "verdict", "{}"));
	ftd_audit_close(&a);
	assert_int_equal(0, verify(&v));
	n = read_lines(current(), lines, 64);
	assert_int_equal(3, n); /* start, lost, verdict */
	assert_non_null(strstr(lines[1], "\"kind\":\"lost\""));
	assert_non_null(strstr(lines[1], "\"records\":2"));
}

static void fsync_comes_in_batches(void **state)
{
	struct ftagentd_config cfg;
	struct ftd_audit a;
	int i;

	(void)state;
	config(&cfg, 64 << 20);
	cfg.audit.fsync_batch = 10;
	cfg.audit.fsync_interval_ms = 500;
	ftd_audit_init(&a);
	assert_int_equal(0, ftd_audit_open(&a, &cfg));
	assert_int_equal(1, a.fsyncs); /* the start record */
	for (i = 0; i < 25; i++)
		ftd_audit_append(&a, 1, "verdict", "{}");
	assert_int_equal(3, a.fsyncs);
	assert_int_equal(5, a.unsynced);
	/* The rest waits for the interval, and says when it is due. */
	assert_true(ftd_audit_due_ms(&a, a.unsynced_since_ns) == 500);
	ftd_audit_tick(&a, a.unsynced_since_ns + 499000000ull);
	assert_int_equal(3, a.fsyncs);
	ftd_audit_tick(&a, a.unsynced_since_ns + 500000000ull);
	assert_int_equal(4, a.fsyncs);
	assert_int_equal(0, ftd_audit_due_ms(&a, 0));
	ftd_audit_close(&a);
}

static void files_belong_to_the_group(void **state)
{
	char group[128];
	struct stat st;
	FILE *f;

	(void)state;
	snprintf(group, sizeof(group), "%s/group", dir);
	f = fopen(group, "w");
	assert_non_null(f);
	fputs("root:x:0:\nftagent:x:4242:\n", f);
	fclose(f);
	ftd_group_file = group;
	strcat(dir, "/trail"); /* a directory the writer makes */
	write_trail(1, 64 << 20);
	assert_int_equal(0, stat(dir, &st));
	assert_int_equal(0750, st.st_mode & 07777);
	if (geteuid() == 0)
		assert_int_equal(4242, st.st_gid);
	assert_int_equal(0, stat(current(), &st));
	assert_int_equal(0640, st.st_mode & 07777);
	if (geteuid() == 0)
		assert_int_equal(4242, st.st_gid);
	dir[strlen(dir) - strlen("/trail")] = '\0';

	/* systemd's LogsDirectory (root:root 0750) is given to the group. */
	assert_int_equal(0, chmod(dir, 0750));
	setenv("LOGS_DIRECTORY", dir, 1);
	assert_int_equal(0, ftd_give_logs_directory());
	unsetenv("LOGS_DIRECTORY");
	assert_int_equal(0, stat(dir, &st));
	assert_int_equal(0750, st.st_mode & 07777);
	if (geteuid() == 0)
		assert_int_equal(4242, st.st_gid);
	ftd_group_file = "/etc/group";
}

static void digests_follow_what_decides(void **state)
{
	char d1[65], d2[65], d3[65];
	struct ftagent_policy_spec p;
	struct ftagent_rule_spec *r;

	(void)state;
	ftagent_policy_spec_init(&p);
	r = ftagent_policy_spec_add(&p);
	strcpy(r->name, "no-metadata");
	r->ops = 1u << FTAGENT_OP_CONNECT;
	r->action = FTAGENT_ACTION_DENY;
	r->set = FTAGENT_RULE_SET_PORT;
	r->port_min = r->port_max = 80;
	ftagent_policy_digest(&p, d1);
	r->hits = 99; /* counting is not deciding */
	p.generation = 7;
	ftagent_policy_digest(&p, d2);
	assert_string_equal(d1, d2);
	r->port_max = 81;
	ftagent_policy_digest(&p, d3);
	assert_string_not_equal(d1, d3);
	ftagent_policy_spec_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(an_intact_trail_verifies, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			a_changed_byte_is_caught_at_its_record, setup,
			teardown),
		cmocka_unit_test_setup_teardown(a_deleted_record_is_caught,
						setup, teardown),
		cmocka_unit_test_setup_teardown(swapped_records_are_caught,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_forged_seq_with_a_good_hash_breaks_prev, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			a_cut_file_fails_until_the_writer_names_the_cut, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			the_chain_carries_across_rotation, setup, teardown),
		cmocka_unit_test_setup_teardown(a_restart_resumes_the_chain,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			records_that_could_not_be_written_are_said, setup,
			teardown),
		cmocka_unit_test_setup_teardown(fsync_comes_in_batches, setup,
						teardown),
		cmocka_unit_test_setup_teardown(files_belong_to_the_group,
						setup, teardown),
		cmocka_unit_test(digests_follow_what_decides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
