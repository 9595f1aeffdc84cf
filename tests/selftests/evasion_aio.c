// SPDX-License-Identifier: GPL-2.0
/*
 * Linux AIO (io_submit) moves bytes without any traced read or write:
 * the kernel calls the file's read_iter and write_iter itself, and
 * direct I/O completes later, in an interrupt or a kernel worker. Each
 * read and write is counted for the process that submitted it, exactly,
 * and charged to its byte budgets, whoever completes it and even when
 * the submitting thread is gone by then.
 *
 * Direct I/O runs on an ext4 file system on a null_blk device whose
 * requests complete from a timer (irqmode=2: hard interrupts) or a
 * softirq (irqmode=1), a few milliseconds after they are issued.
 *
 * Raw AIO system calls, no libaio.
 */
#include <linux/aio_abi.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "budget_test.h"
#include "ia32_test.h"

#define BLOCK	   4096
#define NREQ	   16
#define FILE_BYTES (NREQ * BLOCK)

static long io_setup_raw(unsigned int n, aio_context_t *ctx)
{
	return syscall(SYS_io_setup, n, ctx);
}

static long io_destroy_raw(aio_context_t ctx)
{
	return syscall(SYS_io_destroy, ctx);
}

static long io_submit_raw(aio_context_t ctx, long n, struct iocb **iocbs)
{
	return syscall(SYS_io_submit, ctx, n, iocbs);
}

/* Wait for exactly @n events (5 s at most); the number got, or -1. */
static long io_wait(aio_context_t ctx, long n, struct io_event *ev)
{
	struct timespec ts = {.tv_sec = 5};
	long got = 0, rc;

	while (got < n) {
		rc = syscall(SYS_io_getevents, ctx, n - got, n - got, ev + got,
			     &ts);
		if (rc <= 0)
			return rc < 0 ? -1 : got;
		got += rc;
	}
	return got;
}

static void prep(struct iocb *cb, int op, int fd, void *buf, size_t len,
		 long long off, uint64_t tag)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_lio_opcode = op;
	cb->aio_fildes = fd;
	cb->aio_buf = (uint64_t)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = off;
	cb->aio_data = tag;
}

/*
 * This process's totals on the object of @fd, gathered over collections
 * until they reach @in_bytes and @out_bytes (completions in interrupts
 * are charged by a kernel worker a moment later) or 5 s pass, and one
 * more collection after that, so that anything extra shows.
 */
static struct ft_totals totals_reaching(int fd, int kind, uint64_t in_bytes,
					uint64_t out_bytes, uint64_t *lost)
{
	struct ft_totals t = {0}, add;
	struct ft_counters fc;
	int round, extra = 0;

	*lost = 0;
	for (round = 0; round < 100; round++) {
		if (ft_collect(&fc))
			break;
		add = ft_sum_fd(&fc, kind, fd);
		*lost += fc.lost[FTAGENT_LOSS_IOURING];
		ft_counters_free(&fc);
		t.in_bytes += add.in_bytes;
		t.in_calls += add.in_calls;
		t.in_errors += add.in_errors;
		t.out_bytes += add.out_bytes;
		t.out_calls += add.out_calls;
		t.out_errors += add.out_errors;
		if (t.in_bytes >= in_bytes && t.out_bytes >= out_bytes &&
		    extra++)
			break;
		usleep(50000);
	}
	return t;
}

/* Buffered I/O: completed at once, in the submitting thread. */
FIXTURE(aio)
{
	char dir[64];
	int file;
	aio_context_t ctx;
	char buf[FILE_BYTES];
};

FIXTURE_SETUP(aio)
{
	struct ft_counters fc;
	char path[96];

	strcpy(self->dir, "/tmp/ftaio.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(path, sizeof(path), "%s/data", self->dir);
	self->file = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, self->file);
	memset(self->buf, 'a', sizeof(self->buf));
	ASSERT_EQ(0, ft_write_all(self->file, self->buf, sizeof(self->buf)));
	self->ctx = 0;
	ASSERT_EQ(0, io_setup_raw(64, &self->ctx));
	ASSERT_EQ(0, clear_budgets());
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
}

FIXTURE_TEARDOWN(aio)
{
	char cmd[128];

	EXPECT_EQ(0, clear_budgets());
	io_destroy_raw(self->ctx);
	close(self->file);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	EXPECT_EQ(0, system(cmd));
}

/* Reads, writes, vectored and not, one by one and batched; short reads. */
TEST_F(aio, buffered_reads_and_writes_are_counted_exactly)
{
	struct iocb cb[8], *cbp[8];
	struct io_event ev[8];
	struct iovec iov[2];
	struct ft_totals t;
	uint64_t in = 0, out = 0, in_calls = 0, out_calls = 0, lost;
	int i;

	prep(&cb[0], IOCB_CMD_PREAD, self->file, self->buf, 1000, 0, 1);
	prep(&cb[1], IOCB_CMD_PWRITE, self->file, self->buf, 777, 5, 2);
	iov[0].iov_base = self->buf;
	iov[0].iov_len = 300;
	iov[1].iov_base = self->buf + 300;
	iov[1].iov_len = 200;
	prep(&cb[2], IOCB_CMD_PWRITEV, self->file, iov, 2, 0, 3);
	prep(&cb[3], IOCB_CMD_PREADV, self->file, iov, 2, BLOCK, 4);
	/* Past the end: short, then nothing. */
	prep(&cb[4], IOCB_CMD_PREAD, self->file, self->buf, 3 * BLOCK,
	     FILE_BYTES - 123, 5);
	prep(&cb[5], IOCB_CMD_PREAD, self->file, self->buf, 10, FILE_BYTES, 6);
	/* An fsync moves no bytes. */
	prep(&cb[6], IOCB_CMD_FSYNC, self->file, NULL, 0, 0, 7);
	prep(&cb[7], IOCB_CMD_PWRITE, self->file, self->buf, 4321, 100, 8);
	for (i = 0; i < 8; i++)
		cbp[i] = &cb[i];
	ASSERT_EQ(1, io_submit_raw(self->ctx, 1, cbp));
	ASSERT_EQ(7, io_submit_raw(self->ctx, 7, cbp + 1));
	ASSERT_EQ(8, io_wait(self->ctx, 8, ev));
	for (i = 0; i < 8; i++) {
		struct iocb *c = (struct iocb *)(uintptr_t)ev[i].obj;

		ASSERT_LE(0, ev[i].res)
		TH_LOG("request %llu: %lld", (unsigned long long)ev[i].data,
		       (long long)ev[i].res);
		switch (c->aio_lio_opcode) {
		case IOCB_CMD_PREAD:
		case IOCB_CMD_PREADV: in += ev[i].res, in_calls++; break;
		case IOCB_CMD_PWRITE:
		case IOCB_CMD_PWRITEV: out += ev[i].res, out_calls++; break;
		}
	}
	EXPECT_EQ(1000 + 500 + 123, in);
	EXPECT_EQ(777 + 500 + 4321, out);
	t = totals_reaching(self->file, FTAGENT_OBJ_FILE, in, out, &lost);
	EXPECT_EQ(in, t.in_bytes);
	EXPECT_EQ(4, in_calls);
	EXPECT_EQ(in_calls, t.in_calls);
	EXPECT_EQ(out, t.out_bytes);
	EXPECT_EQ(out_calls, t.out_calls);
	EXPECT_EQ(0, t.in_errors + t.out_errors);
	EXPECT_EQ(0, lost);
}

/*
 * A request that fails when it runs is a failed call; one refused at
 * submission (a file not open for reading) is neither counted nor left
 * behind to be charged to the next request at its address.
 */
TEST_F(aio, failed_requests_are_errors)
{
	struct iocb cb[2], *p;
	struct io_event ev[2];
	struct ft_totals t;
	uint64_t lost;
	char path[96];
	int wronly, i;

	snprintf(path, sizeof(path), "%s/data", self->dir);
	wronly = open(path, O_WRONLY);
	ASSERT_LE(0, wronly);
	for (i = 0; i < 4; i++) {
		prep(&cb[0], IOCB_CMD_PREAD, wronly, self->buf, 100, 0, 1);
		p = &cb[0];
		EXPECT_EQ(-1, io_submit_raw(self->ctx, 1, &p));
		EXPECT_EQ(EBADF, errno);
	}
	/* A buffer the kernel cannot write: EFAULT, from the request. */
	prep(&cb[1], IOCB_CMD_PREAD, self->file, (void *)16, 100, 0, 2);
	p = &cb[1];
	ASSERT_EQ(1, io_submit_raw(self->ctx, 1, &p));
	ASSERT_EQ(1, io_wait(self->ctx, 1, ev));
	EXPECT_EQ(-EFAULT, ev[0].res);
	prep(&cb[0], IOCB_CMD_PWRITE, wronly, self->buf, 99, 0, 3);
	p = &cb[0];
	ASSERT_EQ(1, io_submit_raw(self->ctx, 1, &p));
	ASSERT_EQ(1, io_wait(self->ctx, 1, ev));
	EXPECT_EQ(99, ev[0].res);
	t = totals_reaching(self->file, FTAGENT_OBJ_FILE, 0, 99, &lost);
	EXPECT_EQ(0, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(1, t.in_errors);
	EXPECT_EQ(99, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(0, t.out_errors);
	EXPECT_EQ(0, lost);
	close(wronly);
}

/* i386's numbers for io_setup and io_submit. */
#define IA32_IO_SETUP  245
#define IA32_IO_SUBMIT 248

/*
 * The 32-bit entry (int $0x80): compat_sys_io_setup and
 * compat_sys_io_submit, with the context and the iocb pointers in
 * memory below 4 GiB. Counted as the 64-bit calls are.
 */
TEST_F(aio, ia32_submissions_are_counted)
{
	struct low {
		uint32_t ctx;
		uint32_t cbp[2];
		struct iocb cb[2];
	} * low;
	struct io_event ev[2];
	struct ft_counters fc;
	struct ft_totals t;
	long rc;

	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	memset(low, 0, sizeof(*low));
	rc = call32(IA32_IO_SETUP, 8, (long)(uintptr_t)&low->ctx, 0, 0, 0);
	if (rc == -ENOSYS)
		SKIP(return, "no 32-bit system calls on this kernel");
	ASSERT_EQ(0, rc);
	prep(&low->cb[0], IOCB_CMD_PWRITE, self->file, self->buf, 2222, 0, 1);
	prep(&low->cb[1], IOCB_CMD_PREAD, self->file, self->buf, 3333, 0, 2);
	low->cbp[0] = (uint32_t)(uintptr_t)&low->cb[0];
	low->cbp[1] = (uint32_t)(uintptr_t)&low->cb[1];
	ASSERT_EQ(2, call32(IA32_IO_SUBMIT, low->ctx, 2,
			    (long)(uintptr_t)low->cbp, 0, 0));
	ASSERT_EQ(2, io_wait(low->ctx, 2, ev));
	EXPECT_EQ(ev[0].data == 1 ? 2222 : 3333, ev[0].res);
	EXPECT_EQ(ev[1].data == 1 ? 2222 : 3333, ev[1].res);
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->file);
	EXPECT_EQ(3333, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(2222, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	io_destroy_raw(low->ctx);
	munmap(low, 4096);
}

/* A TCP connection over loopback: the connecting end, the accepted one. */
static int tcp_pair(int sv[2])
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sv[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || sv[0] < 0 || bind(l, (struct sockaddr *)&sin, len) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&sin, &len) ||
	    connect(sv[0], (struct sockaddr *)&sin, len))
		return -1;
	sv[1] = accept(l, NULL, NULL);
	close(l);
	return sv[1] < 0 ? -1 : 0;
}

/* Pipes and sockets: their own objects, their own kinds. */
TEST_F(aio, pipe_and_socket_bytes_are_counted)
{
	struct iocb cb[4], *cbp[4];
	struct io_event ev[4];
	struct ft_counters fc;
	struct ft_totals t;
	int pfd[2], sv[2], i;

	ASSERT_EQ(0, pipe(pfd));
	ASSERT_EQ(0, tcp_pair(sv));
	/* The connect and the accept are calls on the sockets: taken now. */
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	prep(&cb[0], IOCB_CMD_PWRITE, pfd[1], self->buf, 2000, 0, 1);
	prep(&cb[1], IOCB_CMD_PREAD, pfd[0], self->buf, 4000, 0, 2);
	prep(&cb[2], IOCB_CMD_PWRITE, sv[0], self->buf, 3000, 0, 3);
	prep(&cb[3], IOCB_CMD_PREAD, sv[1], self->buf, 5000, 0, 4);
	for (i = 0; i < 4; i++)
		cbp[i] = &cb[i];
	ASSERT_EQ(4, io_submit_raw(self->ctx, 4, cbp));
	ASSERT_EQ(4, io_wait(self->ctx, 4, ev));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(ev[i].data % 2 ? (ev[i].data == 1 ? 2000 : 3000)
					 : (ev[i].data == 2 ? 2000 : 3000),
			  ev[i].res);
	/* Completed at once, in this thread: one collection holds all. */
	ASSERT_EQ(0, ft_collect(&fc));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_PIPE, pfd[1]);
	EXPECT_EQ(2000, t.in_bytes);
	EXPECT_EQ(2000, t.out_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(1, t.out_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, sv[0]);
	EXPECT_EQ(3000, t.out_bytes);
	EXPECT_EQ(1, t.out_calls);
	EXPECT_EQ(0, t.in_calls);
	t = ft_sum_fd(&fc, FTAGENT_OBJ_SOCKET, sv[1]);
	EXPECT_EQ(3000, t.in_bytes);
	EXPECT_EQ(1, t.in_calls);
	EXPECT_EQ(0, t.out_calls);
	EXPECT_EQ(0, fc.lost[FTAGENT_LOSS_IOURING]);
	ft_counters_free(&fc);
	close(pfd[0]);
	close(pfd[1]);
	close(sv[0]);
	close(sv[1]);
}

/* A bytes_written budget is charged for AIO writes, then refuses one. */
TEST_F(aio, a_written_bytes_budget_is_charged)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec got;
	struct io_event ev[1];
	struct ftnl_error err;
	struct iocb cb, *p = &cb;
	int done = 0;

	budget(&s, "aio-write-5000", FTAGENT_METRIC_BYTES_WRITTEN, 5000, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	for (done = 0; done < 10; done++) {
		prep(&cb, IOCB_CMD_PWRITE, self->file, self->buf, 1000, 0, 1);
		if (io_submit_raw(self->ctx, 1, &p) != 1)
			break;
		ASSERT_EQ(1, io_wait(self->ctx, 1, ev));
		ASSERT_EQ(1000, ev[0].res);
	}
	EXPECT_EQ(EDQUOT, errno);
	EXPECT_EQ(5, done);
	ASSERT_EQ(0, get_one(&got));
	EXPECT_EQ(5000, got.used);
	ftagent_budget_set_free(&s);
}

/*
 * Direct I/O on a device whose requests complete from a timer's hard
 * interrupt (irqmode=2) or a softirq (irqmode=1).
 */
/* An ext4 file on a null_blk device, open for direct I/O. */
struct dio_dev {
	char dev[32];  /* /dev/nullb0, or the configfs device's */
	bool configfs; /* made through configfs: removed there */
	char mnt[64];
	int file;
	aio_context_t ctx;
	char *buf;
};

FIXTURE(dio)
{
	struct dio_dev d;
};

FIXTURE_VARIANT(dio)
{
	int irqmode;
};

FIXTURE_VARIANT_ADD(dio, hardirq){
	.irqmode = 2,
};

FIXTURE_VARIANT_ADD(dio, softirq){
	.irqmode = 1,
};

static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

#define NULLB_CONFIGFS "/sys/kernel/config/nullb"
#define NULLB_NAME     "ftaio"

/*
 * A null_blk device of 1 GiB in memory, completing requests from
 * @irqmode after @nsec: the module loaded with those parameters, or,
 * where null_blk is built in (the debug kernel of make check-debug has
 * no loadable modules) or with @configfs, a device made through its
 * configfs directory (named after the directory: /dev/ftaio), which can
 * be given another completion time later (dio_slow_completions()). 0,
 * or 1 if there is neither.
 */
static int nullb_up(struct dio_dev *d, int irqmode, long nsec, bool configfs)
{
	sh("rmmod null_blk 2>/dev/null");
	if (configfs)
		sh("modprobe null_blk nr_devices=0 2>/dev/null");
	else if (!sh("modprobe null_blk nr_devices=1 irqmode=%d "
		     "completion_nsec=%ld memory_backed=1 gb=1 2>/dev/null",
		     irqmode, nsec)) {
		strcpy(d->dev, "/dev/nullb0");
		return 0;
	}
	if (access(NULLB_CONFIGFS, F_OK))
		sh("mount -t configfs none /sys/kernel/config 2>/dev/null");
	if (access(NULLB_CONFIGFS, F_OK))
		return 1;
	d->configfs = true;
	snprintf(d->dev, sizeof(d->dev), "/dev/%s", NULLB_NAME);
	return sh("set -e; c=" NULLB_CONFIGFS "/" NULLB_NAME "; mkdir $c; "
		  "echo 1024 > $c/size; echo 1 > $c/memory_backed; "
		  "echo %d > $c/irqmode; echo %ld > $c/completion_nsec; "
		  "echo 1 > $c/power; test -b %s",
		  irqmode, nsec, d->dev)
		       ? -1
		       : 0;
}

static void nullb_down(struct dio_dev *d)
{
	if (d->configfs)
		sh("c=" NULLB_CONFIGFS "/" NULLB_NAME "; "
		   "echo 0 > $c/power 2>/dev/null; rmdir $c 2>/dev/null");
	/* Built in (configfs only): nothing to unload. */
	sh("rmmod null_blk 2>/dev/null");
}

/*
 * Make that null_blk device, put ext4 on it and a file of FILE_BYTES of
 * @fill, read back from the device only, and an AIO context: 0, 1 when
 * a module is missing (a skip, *@why says which), or -1 when step *@why
 * failed.
 */
static int dio_up(struct dio_dev *d, int irqmode, long nsec, bool configfs,
		  char fill, const char **why)
{
	char path[96];
	int fd, rc;

	d->file = -1;
	d->ctx = 0;
	d->buf = NULL;
	d->mnt[0] = 0;
	d->configfs = false;
	/* A stale configfs device of an interrupted run. */
	nullb_down(&(struct dio_dev){.configfs = true});
	*why = "no ext4 for a file system on the device";
	if (sh("grep -qw ext4 /proc/filesystems || modprobe ext4"))
		return 1;
	*why = "no null_blk to complete direct I/O from interrupts";
	rc = nullb_up(d, irqmode, nsec, configfs);
	if (rc < 0)
		*why = "a null_blk device made through configfs";
	if (rc)
		return rc;
	*why = "mkfs.ext4";
	if (sh("mkfs.ext4 -q -F %s >/dev/null 2>&1", d->dev))
		return -1;
	*why = "mkdtemp";
	strcpy(d->mnt, "/tmp/ftaio-mnt.XXXXXX");
	if (!mkdtemp(d->mnt)) {
		d->mnt[0] = 0;
		return -1;
	}
	*why = "mount";
	if (mount(d->dev, d->mnt, "ext4", 0, NULL))
		return -1;
	*why = "the file";
	snprintf(path, sizeof(path), "%s/data", d->mnt);
	if (posix_memalign((void **)&d->buf, BLOCK, FILE_BYTES))
		return -1;
	memset(d->buf, fill, FILE_BYTES);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ft_write_all(fd, d->buf, FILE_BYTES) || fsync(fd))
		return -1;
	close(fd);
	/* The data on the device, none of it in the page cache. */
	*why = "drop_caches";
	if (sh("echo 1 > /proc/sys/vm/drop_caches"))
		return -1;
	*why = "open with O_DIRECT";
	d->file = open(path, O_RDWR | O_DIRECT);
	if (d->file < 0)
		return -1;
	*why = "io_setup";
	return io_setup_raw(64, &d->ctx) ? -1 : 0;
}

static void dio_down(struct dio_dev *d)
{
	if (d->ctx)
		io_destroy_raw(d->ctx);
	if (d->file >= 0)
		close(d->file);
	if (d->mnt[0]) {
		umount(d->mnt);
		rmdir(d->mnt);
	}
	free(d->buf);
	nullb_down(d);
}

FIXTURE_SETUP(dio)
{
	struct ft_counters fc;
	const char *why;
	int rc = dio_up(&self->d, variant->irqmode, 3000000, false, 'd', &why);

	if (rc > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, rc) TH_LOG("%s: %s", why, strerror(errno));
	ASSERT_EQ(0, clear_budgets());
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
}

FIXTURE_TEARDOWN(dio)
{
	EXPECT_EQ(0, clear_budgets());
	dio_down(&self->d);
}

/*
 * Submit @n requests @op of a block each, block i of @buf at offset i,
 * tagged i, in one io_submit(): its result.
 */
static long submit_blocks(aio_context_t ctx, int op, int fd, char *buf, int n)
{
	struct iocb cb[NREQ], *cbp[NREQ];
	int i;

	for (i = 0; i < n; i++) {
		prep(&cb[i], op, fd, buf + i * BLOCK, BLOCK,
		     (long long)i * BLOCK, i);
		cbp[i] = &cb[i];
	}
	return io_submit_raw(ctx, n, cbp);
}

/* @n requests of a block each, reads or writes, all in flight at once. */
static long dio_batch(aio_context_t ctx, int fd, char *buf, int op, int n)
{
	struct io_event ev[NREQ];
	long sum = 0;
	int i;

	if (submit_blocks(ctx, op, fd, buf, n) != n || io_wait(ctx, n, ev) != n)
		return -1;
	for (i = 0; i < n; i++) {
		if (ev[i].res != BLOCK)
			return -1;
		sum += ev[i].res;
	}
	return sum;
}

TEST_F(dio, direct_reads_and_writes_are_counted_exactly)
{
	struct ft_totals t;
	uint64_t lost;

	FT_RETURN_IF_SETUP_SKIPPED();
	ASSERT_EQ(FILE_BYTES, dio_batch(self->d.ctx, self->d.file, self->d.buf,
					IOCB_CMD_PREAD, NREQ));
	ASSERT_EQ(FILE_BYTES, dio_batch(self->d.ctx, self->d.file, self->d.buf,
					IOCB_CMD_PWRITE, NREQ));
	ASSERT_EQ(4 * BLOCK, dio_batch(self->d.ctx, self->d.file, self->d.buf,
				       IOCB_CMD_PREAD, 4));
	t = totals_reaching(self->d.file, FTAGENT_OBJ_FILE,
			    FILE_BYTES + 4 * BLOCK, FILE_BYTES, &lost);
	EXPECT_EQ(FILE_BYTES + 4 * BLOCK, t.in_bytes);
	EXPECT_EQ(NREQ + 4, t.in_calls);
	EXPECT_EQ(FILE_BYTES, t.out_bytes);
	EXPECT_EQ(NREQ, t.out_calls);
	EXPECT_EQ(0, t.in_errors + t.out_errors);
	EXPECT_EQ(0, lost);
}

/* The budget's usage once it reaches @want, or after 5 s. */
static uint64_t budget_used_reaching(uint64_t want)
{
	struct ftagent_budget_spec got = {0};
	int i;

	for (i = 0; i < 100; i++) {
		if (get_one(&got))
			return 0;
		if (got.used >= want)
			break;
		usleep(50000);
	}
	return got.used;
}

/*
 * A bytes_read budget is charged by direct reads that complete in
 * interrupts, then refuses the next read at submission.
 */
TEST_F(dio, a_read_bytes_budget_is_charged_from_interrupts)
{
	struct ftagent_budget_set s = {0};
	struct ftnl_error err;
	struct iocb cb, *p = &cb;

	FT_RETURN_IF_SETUP_SKIPPED();
	budget(&s, "dio-read", FTAGENT_METRIC_BYTES_READ, 8 * BLOCK, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(8 * BLOCK, dio_batch(self->d.ctx, self->d.file, self->d.buf,
				       IOCB_CMD_PREAD, 8));
	EXPECT_EQ(8 * BLOCK, budget_used_reaching(8 * BLOCK));
	prep(&cb, IOCB_CMD_PREAD, self->d.file, self->d.buf, BLOCK, 0, 1);
	EXPECT_EQ(-1, io_submit_raw(self->d.ctx, 1, &p));
	EXPECT_EQ(EDQUOT, errno);
	ftagent_budget_set_free(&s);
}

struct submitter {
	aio_context_t ctx;
	int fd;
	char *buf;
	const char *name;
	int wait; /* for the reads, before exiting */
	long submitted;
	long completed;
};

/* Submit a batch of reads; exit at once, or once they complete. */
static void *submit_and_exit(void *arg)
{
	struct submitter *s = arg;
	struct io_event ev[NREQ];

	if (s->name)
		prctl(PR_SET_NAME, s->name);
	s->submitted =
		submit_blocks(s->ctx, IOCB_CMD_PREAD, s->fd, s->buf, NREQ);
	if (s->wait && s->submitted == NREQ)
		s->completed = io_wait(s->ctx, NREQ, ev);
	return NULL;
}

/*
 * A thread that submits reads and exits before they complete: its
 * process is counted and charged for them all.
 */
TEST_F(dio, a_gone_thread_s_reads_are_its_process_s)
{
	struct ftagent_budget_set s = {0};
	struct submitter sub = {
		self->d.ctx, self->d.file, self->d.buf, NULL, 0, 0, 0};
	struct io_event ev[NREQ];
	struct ftnl_error err;
	struct ft_totals t;
	pthread_t th;
	uint64_t lost;
	int i;

	FT_RETURN_IF_SETUP_SKIPPED();
	budget(&s, "dio-gone", FTAGENT_METRIC_BYTES_READ, 1 << 30, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, pthread_create(&th, NULL, submit_and_exit, &sub));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(NREQ, sub.submitted);
	ASSERT_EQ(NREQ, io_wait(self->d.ctx, NREQ, ev));
	for (i = 0; i < NREQ; i++)
		ASSERT_EQ(BLOCK, ev[i].res);
	t = totals_reaching(self->d.file, FTAGENT_OBJ_FILE, FILE_BYTES, 0,
			    &lost);
	EXPECT_EQ(FILE_BYTES, t.in_bytes);
	EXPECT_EQ(NREQ, t.in_calls);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(FILE_BYTES, budget_used_reaching(FILE_BYTES));
	ftagent_budget_set_free(&s);
}

/*
 * A budget on a name a thread takes for itself: its direct reads are
 * charged under that name, though they complete in interrupts, where
 * the current task is anyone.
 */
TEST_F(dio, a_renamed_thread_s_reads_are_charged_to_its_name)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec *b;
	struct submitter sub = {
		self->d.ctx, self->d.file, self->d.buf, "ftaio_named", 1, 0, 0};
	struct ftnl_error err;
	pthread_t th;

	FT_RETURN_IF_SETUP_SKIPPED();
	b = budget(&s, "ftaio_named", FTAGENT_METRIC_BYTES_READ, 1 << 30,
		   60000);
	b->set = FTAGENT_RULE_SET_COMM;
	snprintf(b->comm, sizeof(b->comm), "%s", "ftaio_named");
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	/* The thread waits for its reads, alive, then exits. */
	ASSERT_EQ(0, pthread_create(&th, NULL, submit_and_exit, &sub));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(NREQ, sub.submitted);
	ASSERT_EQ(NREQ, sub.completed);
	EXPECT_EQ(FILE_BYTES, budget_used_reaching(FILE_BYTES));
	ftagent_budget_set_free(&s);
}

/* Where a process submits its reads. */
struct reads_on {
	aio_context_t ctx;
	int fd;
	char *buf;
};

/* A process sharing the caller's memory: submit, and exit at once. */
static int clone_submit_and_exit(void *arg)
{
	struct reads_on *c = arg;
	long n = submit_blocks(c->ctx, IOCB_CMD_PREAD, c->fd, c->buf, NREQ);

	_exit(n == NREQ ? 0 : 1);
}

/*
 * A process that shares this one's memory (clone(CLONE_VM)) submits
 * direct reads on its AIO context and exits at once; its exit does not
 * wait for them (the memory lives on), and it is reaped before they
 * complete. They are still counted for it and charged to its budgets.
 */
TEST_F(dio, a_reaped_clone_s_reads_are_counted_and_charged)
{
	struct ftagent_budget_set s = {0};
	struct reads_on c = {self->d.ctx, self->d.file, self->d.buf};
	struct io_event ev[NREQ];
	struct ftnl_error err;
	struct ft_counters fc;
	struct ft_totals t = {0}, add;
	char *stack;
	int status, round;
	pid_t child;

	FT_RETURN_IF_SETUP_SKIPPED();
	budget(&s, "dio-clone", FTAGENT_METRIC_BYTES_READ, 1 << 30, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	stack = malloc(1 << 16);
	ASSERT_NE(NULL, stack);
	child = clone(clone_submit_and_exit, stack + (1 << 16),
		      CLONE_VM | SIGCHLD, &c);
	ASSERT_LT(0, child);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(NREQ, io_wait(self->d.ctx, NREQ, ev));
	free(stack);
	for (round = 0; round < 100 && t.in_bytes < FILE_BYTES; round++) {
		ASSERT_EQ(0, ft_collect_tgid(&fc, child));
		add = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->d.file);
		ft_counters_free(&fc);
		t.in_bytes += add.in_bytes;
		t.in_calls += add.in_calls;
		if (t.in_bytes < FILE_BYTES)
			usleep(50000);
	}
	EXPECT_EQ(FILE_BYTES, t.in_bytes);
	EXPECT_EQ(NREQ, t.in_calls);
	EXPECT_EQ(FILE_BYTES, budget_used_reaching(FILE_BYTES));
	ftagent_budget_set_free(&s);
}

/* Once the leader is a zombie: submit, and exit the process with it. */
static void *submit_after_leader(void *arg)
{
	struct reads_on *z = arg;

	usleep(100000);
	if (submit_blocks(z->ctx, IOCB_CMD_PREAD, z->fd, z->buf, NREQ) != NREQ)
		_exit(1);
	return NULL;
}

static void *exit_at_once(void *arg)
{
	pthread_exit(arg);
}

/*
 * A budget on this executable, and a process whose leader has exited
 * (a zombie, with no memory of its own to name an executable by) and
 * whose last thread submits direct reads and exits: they are charged
 * to it, matched when they were submitted.
 */
TEST_F(dio, an_exe_budget_holds_after_the_leader_exits)
{
	struct ftagent_budget_set s = {0};
	struct ftagent_budget_spec *b;
	struct ftnl_error err;
	pthread_t first;
	int status;
	pid_t child;

	FT_RETURN_IF_SETUP_SKIPPED();
	/*
	 * pthread_exit() loads the unwinder (libgcc_s) on first use, which
	 * reads its ELF header: loaded now, before the budget counts.
	 */
	ASSERT_EQ(0, pthread_create(&first, NULL, exit_at_once, NULL));
	ASSERT_EQ(0, pthread_join(first, NULL));
	b = budget(&s, "dio-exe", FTAGENT_METRIC_BYTES_READ, 1 << 30, 60000);
	b->set = FTAGENT_RULE_SET_EXE;
	ASSERT_LT(0, readlink("/proc/self/exe", b->exe_prefix,
			      sizeof(b->exe_prefix) - 1));
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		static struct reads_on z;
		pthread_t th;

		/* A context is not inherited: the child sets up its own. */
		z.ctx = 0;
		if (io_setup_raw(NREQ, &z.ctx))
			_exit(3);
		z.fd = self->d.file;
		z.buf = self->d.buf;
		if (pthread_create(&th, NULL, submit_after_leader, &z))
			_exit(2);
		pthread_exit(NULL);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	EXPECT_EQ(FILE_BYTES, budget_used_reaching(FILE_BYTES));
	ftagent_budget_set_free(&s);
}

/*
 * Direct reads that stay in flight for a second (null_blk completes them
 * from a timer after 1 s): long enough for their submitter to be reaped
 * and its number given to another process first.
 */
FIXTURE(slow)
{
	struct dio_dev d;
};

/*
 * Make @d's device complete requests @nsec after they are issued from
 * now on: powered off (its memory stays), given the new time and powered
 * on, the file system (made while requests took milliseconds, not a
 * second each) mounted again read-only, without its journal (nothing to
 * write at mount or unmount), and the file opened again for reading. 0,
 * or -1 when step *@why failed.
 */
static int dio_slow_completions(struct dio_dev *d, long nsec, const char **why)
{
	char path[96];

	*why = "close";
	if (close(d->file))
		return -1;
	d->file = -1;
	*why = "umount";
	if (umount(d->mnt))
		return -1;
	*why = "a power cycle with the new completion time";
	if (sh("set -e; c=" NULLB_CONFIGFS "/" NULLB_NAME "; "
	       "echo 0 > $c/power; echo %ld > $c/completion_nsec; "
	       "echo 1 > $c/power; test -b %s",
	       nsec, d->dev))
		return -1;
	*why = "mount";
	if (mount(d->dev, d->mnt, "ext4", MS_RDONLY, "noload"))
		return -1;
	*why = "open with O_DIRECT";
	snprintf(path, sizeof(path), "%s/data", d->mnt);
	d->file = open(path, O_RDONLY | O_DIRECT);
	return d->file < 0 ? -1 : 0;
}

FIXTURE_SETUP(slow)
{
	const char *why;
	int rc = dio_up(&self->d, 2, 3000000, true, 's', &why);

	if (rc > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, rc) TH_LOG("%s: %s", why, strerror(errno));
	ASSERT_EQ(0, dio_slow_completions(&self->d, 1000000000, &why))
	TH_LOG("%s: %s", why, strerror(errno));
	ASSERT_EQ(0, clear_budgets());
}

FIXTURE_TEARDOWN(slow)
{
	EXPECT_EQ(0, clear_budgets());
	dio_down(&self->d);
}

/* A process that waits to be killed, with number @want if it can get it. */
static pid_t fork_as(pid_t want)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	pid_t pid;

	if (!f)
		return -1;
	fprintf(f, "%d", want - 1);
	if (fclose(f))
		return -1;
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/*
 * A submitter reaped while its reads are in flight, and its number given
 * to another process before they complete: that process is not counted
 * for them (they are counted as lost), and the submitter's budget is
 * still charged.
 */
TEST_F_TIMEOUT(slow, a_reused_number_is_not_charged_for_the_old_reads, 120)
{
	struct ftagent_budget_set s = {0};
	struct reads_on c = {self->d.ctx, self->d.file, self->d.buf};
	struct io_event ev[NREQ];
	struct ftnl_error err;
	struct ft_counters fc;
	struct ft_totals t;
	struct timespec zero = {0};
	pid_t child, victim = -1;
	uint64_t lost = 0;
	int status, tries;
	char *stack;

	FT_RETURN_IF_SETUP_SKIPPED();
	budget(&s, "dio-reused", FTAGENT_METRIC_BYTES_READ, 1 << 30, 60000);
	ASSERT_EQ(0, set_budgets(&s, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, ft_collect(&fc));
	ft_counters_free(&fc);
	stack = malloc(1 << 16);
	ASSERT_NE(NULL, stack);
	child = clone(clone_submit_and_exit, stack + (1 << 16),
		      CLONE_VM | SIGCHLD, &c);
	ASSERT_LT(0, child);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	for (tries = 0; tries < 5 && victim != child; tries++) {
		if (victim > 0) {
			kill(victim, SIGKILL);
			waitpid(victim, NULL, 0);
		}
		victim = fork_as(child);
		ASSERT_LT(0, victim);
	}
	ASSERT_EQ(child, victim) TH_LOG("the number was taken first");
	/* Still in flight: otherwise this run proves nothing. */
	ASSERT_EQ(0,
		  syscall(SYS_io_getevents, self->d.ctx, 1, NREQ, ev, &zero));
	ASSERT_EQ(NREQ, io_wait(self->d.ctx, NREQ, ev));
	free(stack);
	usleep(300000);
	ASSERT_EQ(0, ft_collect_tgid(&fc, victim));
	t = ft_sum_fd(&fc, FTAGENT_OBJ_FILE, self->d.file);
	lost = fc.lost[FTAGENT_LOSS_IOURING];
	ft_counters_free(&fc);
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	EXPECT_EQ(0, t.in_bytes);
	EXPECT_EQ(0, t.in_calls);
	EXPECT_EQ(NREQ, lost);
	EXPECT_EQ(FILE_BYTES, budget_used_reaching(FILE_BYTES));
	ftagent_budget_set_free(&s);
}

TEST_HARNESS_MAIN
