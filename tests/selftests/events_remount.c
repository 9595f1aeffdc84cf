// SPDX-License-Identifier: GPL-2.0
/*
 * The event channel outlives every mount of ftagentfs: records written
 * while nothing is mounted (no daemon runs, or the daemon's mount went
 * with its namespace) wait in the buffer and are read after the next
 * mount, and neither mounting nor unmounting counts anything as
 * discarded.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/vfs.h>

#include "kselftest_harness.h"
#include "events_test.h"

#define N_EXECS	  200
#define N_SOCKETS 300

/* Take every mount of the event filesystem away; 0 when none is left. */
static int unmount_all(void)
{
	struct statfs sfs;

	while (!umount2(FTAGENT_FS_MOUNTPOINT, 0))
		;
	if (statfs(FTAGENT_FS_MOUNTPOINT, &sfs) < 0)
		return -1;
	return sfs.f_type == FTAGENT_FS_MAGIC ? -1 : 0;
}

static uint64_t discarded(void)
{
	struct ftagent_resources res;
	uint64_t sum = 0;
	size_t i;

	if (ev_resources(&res) < 0)
		return UINT64_MAX;
	for (i = 0; i < res.n_cpus; i++)
		sum += res.cpus[i].ev_discarded;
	ftagent_resources_free(&res);
	return sum;
}

/* fork + exec /bin/true; the child's pid, or -1. */
static pid_t run_true(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return pid;
}

FIXTURE(remount)
{
	struct ev_log log;
	pid_t kids[N_EXECS];
};

FIXTURE_SETUP(remount)
{
	/* Mounted and drained: what came before is read. */
	ASSERT_EQ(0, ev_open(&self->log));
}

FIXTURE_TEARDOWN(remount)
{
	ev_close(&self->log);
	/* Leave the filesystem mounted, as the runner may have had it. */
	EXPECT_EQ(0, ftagent_events_mount(NULL));
}

/* Work done while unmounted, then every record of it read after a mount. */
static void work_then_read(struct __test_metadata *_metadata,
			   FIXTURE_DATA(remount) * self)
{
	int i, s;

	for (i = 0; i < N_EXECS; i++) {
		self->kids[i] = run_true();
		ASSERT_LT(0, self->kids[i]);
	}
	for (i = 0; i < N_SOCKETS; i++) {
		s = socket(AF_INET, SOCK_DGRAM, 0);
		ASSERT_LE(0, s);
		close(s);
	}
	ASSERT_EQ(0, ftagent_events_mount(NULL));
	ASSERT_EQ(0, ftagent_events_open(&self->log.rd, NULL));
	ASSERT_LE(0, ev_drain(&self->log));
	for (i = 0; i < N_EXECS; i++) {
		EXPECT_EQ(1,
			  ev_count(&self->log, FTAGENT_REC_EXEC, self->kids[i]))
		TH_LOG("exec %d (pid %d)", i, self->kids[i]);
	}
	EXPECT_EQ(N_SOCKETS, ev_count(&self->log, FTAGENT_REC_CLOSE, getpid()));
}

/* 300 s: the debug kernel's lockdown phase, under load, took over 30. */
TEST_F_TIMEOUT(remount, records_written_while_unmounted_are_read_after_a_mount,
	       300)
{
	uint64_t x0 = discarded();

	ASSERT_NE(UINT64_MAX, x0);
	ftagent_events_close(&self->log.rd);
	ev_forget(&self->log);
	ASSERT_EQ(0, unmount_all());
	work_then_read(_metadata, self);
	EXPECT_EQ(x0, discarded());
}

/*
 * A reader that mounted in a mount namespace of its own (as a service
 * under systemd's ProtectSystem= does) and went away with it.
 */
TEST_F_TIMEOUT(remount, records_outlive_a_mount_namespace_that_went_away, 300)
{
	uint64_t x0 = discarded();
	int status;
	pid_t pid;

	ASSERT_NE(UINT64_MAX, x0);
	ftagent_events_close(&self->log.rd);
	ev_forget(&self->log);
	ASSERT_EQ(0, unmount_all());
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ftagent_events_reader rd;

		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    ftagent_events_mount(NULL) ||
		    ftagent_events_open(&rd, NULL))
			_exit(1);
		ftagent_events_close(&rd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The namespace and its mount are gone with the child. */
	ASSERT_EQ(0, unmount_all());
	work_then_read(_metadata, self);
	EXPECT_EQ(x0, discarded());
}

TEST_HARNESS_MAIN
