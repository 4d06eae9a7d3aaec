/* tmp_cleanup.c -- remove this process's unpacked FMUs from a signal
 * handler (tmp_cleanup.h).  Only async-signal-safe calls: the directory is
 * read with getdents64 into a buffer on the stack, and every tree removed
 * through file descriptors (openat, unlinkat), to a bounded depth. */
#define _GNU_SOURCE
#include "tmp_cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TREE_DEPTH_MAX 24 /* deeper FMU trees are left (never seen) */

/* The process global the handler reads (set once, before any FMU opens). */
static struct {
    char dir[4096];    /* $TMPDIR */
    char prefix[64];   /* "cosa-fmu-PID-" */
    size_t plen;
} tc;

/* The layout of getdents64's records (linux_dirent64). */
struct dent64 {
    unsigned long long ino;
    long long off;
    unsigned short reclen;
    unsigned char type;
    char name[];
};

int tmp_cleanup_init(void)
{
    const char *t = getenv("TMPDIR");
    if (!t || !t[0])
        t = "/tmp";
    const int a = snprintf(tc.dir, sizeof tc.dir, "%s", t);
    const int b = snprintf(tc.prefix, sizeof tc.prefix, "cosa-fmu-%ld-", (long)getpid());
    if (a < 0 || (size_t)a >= sizeof tc.dir || b < 0 || (size_t)b >= sizeof tc.prefix) {
        tc.plen = 0;
        return -1;
    }
    tc.plen = (size_t)b;
    return 0;
}

static int is_dot(const char *n) { return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])); }

/* Remove the contents of the directory fd (re-reading it from the start
 * after every pass, since it changes while it is read). */
static void rm_contents(int fd, int depth)
{
    char buf[4096];
    for (int pass = 0; pass < 1000; pass++) {
        if (lseek(fd, 0, SEEK_SET) < 0)
            return;
        long n, removed = 0;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                const struct dent64 *d = (const struct dent64 *)(buf + off);
                off += d->reclen;
                if (is_dot(d->name))
                    continue;
                if (unlinkat(fd, d->name, 0) == 0) {
                    removed++;
                    continue;
                }
                if (depth >= TREE_DEPTH_MAX)
                    continue;
                const int sub = openat(fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
                if (sub >= 0) {
                    rm_contents(sub, depth + 1);
                    close(sub);
                }
                removed += unlinkat(fd, d->name, AT_REMOVEDIR) == 0;
            }
        }
        if (removed == 0)
            return;
    }
}

void tmp_cleanup_run(void)
{
    if (!tc.plen)
        return;
    const int fd = open(tc.dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return;
    char buf[4096];
    long n;
    /* one pass: removing whole trees from the top directory as they come */
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
        for (long off = 0; off < n;) {
            const struct dent64 *d = (const struct dent64 *)(buf + off);
            off += d->reclen;
            if (strncmp(d->name, tc.prefix, tc.plen) != 0)
                continue;
            const int sub = openat(fd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
            if (sub < 0)
                continue;
            rm_contents(sub, 1);
            close(sub);
            unlinkat(fd, d->name, AT_REMOVEDIR);
        }
    close(fd);
}
