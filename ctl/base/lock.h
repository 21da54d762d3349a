/* The lock of a benchmark directory (and of a lane) that holds across the
 * nodes sharing it (docs/shared-storage.md, "Locks"):
 *   - an fcntl (POSIX record) lock on PATH orders the processes of one
 *     node, and of every node where the file system forwards fcntl locks
 *     to its server (NFS with lockd, Lustre with -o flock, GPFS);
 *   - an owner file PATH.owner, created with O_CREAT|O_EXCL while the fcntl
 *     lock is held and removed before it is released, orders the nodes
 *     where fcntl locks are local to each client (sshfs, NFS mounted with
 *     nolock or local_lock=all): an exclusive create is decided by the
 *     file server, whatever the clients cache.  A stale positive entry in
 *     a client's cache only makes it wait longer, never proceed.
 * The owner file names its holder (host, boot, mount namespace, pid) and
 * when it was taken and last renewed.  An owner file of this node (same
 * host, boot and mount namespace) found while this process holds the
 * fcntl lock was left by a process that died: it is removed.  One of
 * another node is waited for while its holder renews it; one not renewed
 * for SB_LOCK_ABANDONED_S is reported as abandoned (what to remove), never
 * broken: only its node can tell that its holder is gone. */
#ifndef SB_CTL_LOCK_H
#define SB_CTL_LOCK_H

#include <stddef.h>
#include <stdint.h>

#include "sbench/error.h"

/* A holder renews its owner file at least this often while it works
 * (sb_lock_renew: submit renews between chunks); a waiter that sees no
 * renewal for SB_LOCK_ABANDONED_S gives up. */
#define SB_LOCK_RENEW_S 60
#define SB_LOCK_ABANDONED_S 900

struct sb_lock {
	int fd;             /* the fcntl lock, -1 when not held */
	char *owner;        /* PATH.owner */
	int64_t renewed_s;  /* when the owner file was last written */
};

/* Called once, when the lock is held by another process and the caller has
 * to wait: holder says whom ("pid 4242", "pid 4242 on login2 since
 * 2026-12-05T21:52:07Z"). */
typedef void (*sb_lock_wait_fn)(void *arg, const char *holder);

/* Takes the lock of path (created if needed), waiting for its holder
 * (wait, may be NULL, is told once).  -1 with err: the file system has no
 * fcntl locks (ENOLCK: what to mount with), the owner file cannot be
 * created, or it was abandoned by a holder on another node (who, since
 * when, and the file to remove once no sbctl runs there).  On success lk
 * holds it until sb_lock_release. */
int sb_lock_take(const char *path, sb_lock_wait_fn wait, void *arg, struct sb_lock *lk,
		 struct sb_error *err);

/* Renews lk's owner file when SB_LOCK_RENEW_S have passed since it was
 * written (a no-op otherwise): a long holder calls it as it works. */
void sb_lock_renew(struct sb_lock *lk);

/* Removes the owner file and releases the fcntl lock; accepts a lock
 * never taken (fd -1, owner NULL). */
void sb_lock_release(struct sb_lock *lk);

/* Whether another process holds path's lock now: 1 (holder, when given,
 * gets whom, as for sb_lock_wait_fn), 0 when none does (no lock file, no
 * fcntl lock held here, and no owner file of a live holder: none, one
 * left by a dead process of this node, or one of another node not renewed
 * for SB_LOCK_ABANDONED_S). */
int sb_lock_held(const char *path, char *holder, size_t size);

#endif
