/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal io_uring user on the raw system calls (no liburing): set a
 * ring up, queue SQEs, submit, reap CQEs. Shared by the selftests and the
 * benchmark, which must build static and without extra libraries.
 */
#ifndef FTAGENT_IOURING_RAW_H
#define FTAGENT_IOURING_RAW_H

#include <errno.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ring {
	int fd;
	struct io_uring_params p;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array, *sq_flags;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned int queued;
};

/* Map the rings of @r->fd, set up with @r->p. */
static inline int ring_map(struct ring *r)
{
	void *sq, *cq;

	sq = mmap(NULL, r->p.sq_off.array + r->p.sq_entries * 4,
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL,
		  r->p.cq_off.cqes +
			  r->p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_head = sq + r->p.sq_off.head;
	r->sq_tail = sq + r->p.sq_off.tail;
	r->sq_mask = sq + r->p.sq_off.ring_mask;
	r->sq_array = sq + r->p.sq_off.array;
	r->sq_flags = sq + r->p.sq_off.flags;
	r->cq_head = cq + r->p.cq_off.head;
	r->cq_tail = cq + r->p.cq_off.tail;
	r->cq_mask = cq + r->p.cq_off.ring_mask;
	r->cqes = cq + r->p.cq_off.cqes;
	return 0;
}

static inline int ring_init(struct ring *r, unsigned int entries,
			    unsigned int flags, unsigned int cq_entries)
{
	memset(r, 0, sizeof(*r));
	r->p.flags = flags;
	r->p.cq_entries = cq_entries;
	if (flags & IORING_SETUP_SQPOLL)
		r->p.sq_thread_idle = 1000;
	r->fd = syscall(__NR_io_uring_setup, entries, &r->p);
	if (r->fd < 0)
		return -1;
	return ring_map(r);
}

/* The next free SQE, zeroed; published by ring_submit(). */
static inline struct io_uring_sqe *ring_sqe(struct ring *r, int op, int fd,
					    uint64_t user_data)
{
	unsigned int tail = *r->sq_tail + r->queued++;
	unsigned int idx = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[idx];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->user_data = user_data;
	r->sq_array[idx] = idx;
	return sqe;
}

static inline struct io_uring_sqe *ring_rw(struct ring *r, int op, int fd,
					   void *buf, unsigned int len,
					   uint64_t off, uint64_t user_data)
{
	struct io_uring_sqe *sqe = ring_sqe(r, op, fd, user_data);

	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->off = off;
	return sqe;
}

/*
 * Publish the queued SQEs and wait until @wait CQEs are there: how many
 * were submitted (with SQPOLL: published for the kernel thread), or
 * -errno.
 */
static inline int ring_submit(struct ring *r, unsigned int wait)
{
	unsigned int n = r->queued, flags = wait ? IORING_ENTER_GETEVENTS : 0;
	int rc;

	__atomic_store_n(r->sq_tail, *r->sq_tail + n, __ATOMIC_RELEASE);
	r->queued = 0;
	if (r->p.flags & IORING_SETUP_SQPOLL) {
		if (__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) &
		    IORING_SQ_NEED_WAKEUP)
			flags |= IORING_ENTER_SQ_WAKEUP;
		rc = syscall(__NR_io_uring_enter, r->fd, 0, wait, flags, NULL,
			     0);
		return rc < 0 ? -errno : (int)n;
	}
	rc = syscall(__NR_io_uring_enter, r->fd, n, wait, flags, NULL, 0);
	return rc < 0 ? -errno : rc;
}

/* Take up to @max CQEs: how many were taken. */
static inline unsigned int ring_reap(struct ring *r, struct io_uring_cqe *out,
				     unsigned int max)
{
	unsigned int head = *r->cq_head, n = 0;

	while (n < max && head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		out[n++] = r->cqes[head++ & *r->cq_mask];
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	return n;
}

/* Wait for and take exactly @n CQEs into @out. */
static inline int ring_wait(struct ring *r, struct io_uring_cqe *out,
			    unsigned int n)
{
	unsigned int got = 0;
	int tries;

	for (tries = 0; got < n && tries < 1000; tries++) {
		got += ring_reap(r, out + got, n - got);
		if (got < n &&
		    syscall(__NR_io_uring_enter, r->fd, 0, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0 &&
		    errno != EINTR)
			return -errno;
	}
	return got == n ? 0 : -ETIMEDOUT;
}

static inline void ring_exit(struct ring *r)
{
	close(r->fd);
}

#endif /* FTAGENT_IOURING_RAW_H */
