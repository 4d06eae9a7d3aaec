/* outfile.c -- atomic output files, their cleanup on failures and signals
 * (outfile.h).  Entries are only appended (a removed one becomes E_FREE),
 * so the directories are removed in the reverse order of their creation. */
#define _GNU_SOURCE /* sync_file_range */
#include "config.h"
#include "outfile.h"
#include "cli.h"
#include "tmp_cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

enum kind { E_FREE, E_TMP, E_STAGED, E_CHILD, E_DIR };

struct entry {
    enum kind kind;
    pid_t pid;   /* E_CHILD */
    char *tmp;   /* E_TMP, E_STAGED; the directory of E_DIR */
    char *final; /* E_TMP, E_STAGED */
};

/* The process global: what the signal handler must reach (outfile.h). */
static struct registry {
    atomic_flag lock;
    struct entry *e;
    size_t n, cap;
    unsigned long counter; /* of temporary names */
} reg = {ATOMIC_FLAG_INIT, NULL, 0, 0, 0};

static void block_signals(sigset_t *old)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    sigaddset(&s, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &s, old);
}

/* The lock is only taken with the signals blocked in this thread: the
 * handler, in another thread, waits for it and never gives it back. */
static void reg_lock(sigset_t *old)
{
    block_signals(old);
    while (atomic_flag_test_and_set_explicit(&reg.lock, memory_order_acquire))
        ;
}

static void reg_unlock(const sigset_t *old)
{
    atomic_flag_clear_explicit(&reg.lock, memory_order_release);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Room for one more entry; called with the lock held, returns with it held.
 * No malloc under the lock (a handler might have interrupted malloc). */
static int reg_room(sigset_t *old)
{
    while (reg.n == reg.cap) {
        const size_t want = reg.cap ? 2 * reg.cap : 32;
        reg_unlock(old);
        struct entry *ne = malloc(want * sizeof *ne), *gone = ne;
        reg_lock(old);
        if (!ne)
            return -1;
        if (reg.cap < want) {
            if (reg.n)
                memcpy(ne, reg.e, reg.n * sizeof *ne);
            gone = reg.e;
            reg.e = ne;
            reg.cap = want;
        }
        reg_unlock(old);
        free(gone);
        reg_lock(old);
    }
    return 0;
}

/* Async-signal-safe: kill and reap the children, remove the temporaries and
 * the (empty) directories created.  With the lock held. */
static void reg_cleanup(void)
{
    for (size_t i = 0; i < reg.n; i++)
        if (reg.e[i].kind == E_CHILD)
            kill(reg.e[i].pid, SIGKILL);
    for (size_t i = 0; i < reg.n; i++)
        if (reg.e[i].kind == E_CHILD)
            while (waitpid(reg.e[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
    for (size_t i = 0; i < reg.n; i++)
        if (reg.e[i].kind == E_TMP || reg.e[i].kind == E_STAGED)
            unlink(reg.e[i].tmp);
    for (size_t i = reg.n; i-- > 0;)
        if (reg.e[i].kind == E_DIR)
            rmdir(reg.e[i].tmp);
}

static void on_signal(int sig)
{
    while (atomic_flag_test_and_set_explicit(&reg.lock, memory_order_acquire))
        ;
    reg_cleanup();
    tmp_cleanup_run(); /* the unpacked FMUs (issue 32) */
    _exit(128 + sig);
}

int outfile_init(void)
{
    (void)tmp_cleanup_init(); /* a $TMPDIR too long to remember: no cleanup, no error */
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < 4; k++)
        sigaddset(&sa.sa_mask, sigs[k]);
    for (int k = 0; k < 4; k++) {
        struct sigaction was;
        /* a signal ignored by whoever started us (nohup, &) stays ignored */
        if (sigaction(sigs[k], NULL, &was) != 0)
            return -1;
        if (was.sa_handler != SIG_IGN && sigaction(sigs[k], &sa, NULL) != 0)
            return -1;
    }
    /* beyond a file size limit, write() fails with EFBIG instead of killing us */
    signal(SIGXFSZ, SIG_IGN);
    return 0;
}

/* Append an entry (the strings are the registry's from now on). */
static long reg_add(sigset_t *old, enum kind k, pid_t pid, char *tmp, char *final)
{
    if (reg_room(old) != 0)
        return -1;
    reg.e[reg.n] = (struct entry){k, pid, tmp, final};
    return (long)reg.n++;
}

/* Create the temporary of path: its name into the new entry. */
static int create_tmp(outfile *o, const char *path)
{
    o->f = NULL;
    o->id = -1;
    o->tmp = NULL;
    const char *slash = strrchr(path, '/');
    const int dlen = slash ? (int)(slash - path + 1) : 0;
    const size_t size = strlen(path) + 64;
    char *tmp = malloc(size), *final = strdup(path);
    if (!tmp || !final) {
        free(tmp);
        free(final);
        errno = ENOMEM;
        return -1;
    }
    sigset_t old;
    int fd = -1, err = 0;
    reg_lock(&old);
    if (reg_room(&old) != 0)
        err = ENOMEM;
    for (int tries = 0; !err && fd < 0 && tries < 100; tries++) {
        snprintf(tmp, size, "%.*s.%s.tmp-%ld-%lu", dlen, path, path + dlen, (long)getpid(),
                 reg.counter++);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            err = errno;
    }
    if (fd >= 0)
        o->id = reg_add(&old, E_TMP, 0, tmp, final);
    else if (!err)
        err = EEXIST;
    reg_unlock(&old);
    if (fd < 0) {
        free(tmp);
        free(final);
        errno = err;
        return -1;
    }
    o->tmp = tmp;
    return fd;
}

FILE *outfile_open(outfile *o, const char *path, int binary)
{
    o->buf = NULL;
    int fd = create_tmp(o, path);
    if (fd < 0)
        return NULL;
    o->f = fdopen(fd, binary ? "wb" : "w");
    if (o->f && (o->buf = malloc(OUTFILE_BUFSIZE)) != NULL &&
        setvbuf(o->f, o->buf, _IOFBF, OUTFILE_BUFSIZE) != 0) {
        free(o->buf); /* stdio's own buffer then */
        o->buf = NULL;
    }
    if (!o->f) {
        const int e = errno;
        close(fd);
        outfile_abandon(o);
        errno = e;
        return NULL;
    }
    return o->f;
}

int outfile_reserve(outfile *o, const char *path)
{
    int fd = create_tmp(o, path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* The reason of a write error the stream saw but fflush no longer does (the
 * stream dropped the bytes when the write failed, and errno is long gone):
 * what a write of no bytes says (/dev/full: ENOSPC; a pipe, a terminal or a
 * regular file take it without a word), a full file system, the file size
 * limit, else EIO. */
static int lost_errno(int fd)
{
    if (write(fd, "", 0) < 0 && errno != EINTR && errno != EAGAIN)
        return errno;
    struct statvfs vs;
    struct stat st;
    struct rlimit rl;
    if (fstatvfs(fd, &vs) == 0 && vs.f_bavail == 0)
        return ENOSPC;
    if (fstat(fd, &st) == 0 && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)st.st_size >= rl.rlim_cur)
        return EFBIG;
    return EIO;
}

int outfile_close_stdout(const char *cmd, int report)
{
    const int fd = fileno(stdout);
    const int pending = __fpending(stdout) > 0, failed = ferror(stdout) != 0;
    int err = 0;
    if (fflush(stdout) != 0)
        err = errno;
    else if (failed)
        err = lost_errno(fd);
    if (fclose(stdout) != 0 && !err && (pending || failed || errno != EBADF))
        err = errno;
    if (!err)
        return CLI_OK;
    if (report)
        cli_error(cmd, "cannot write to standard output: %s", strerror(err));
    return CLI_EFAIL;
}

/* Start writing the file's data to disk and return at once: the fsync of
 * outfile_publish then finds it written (or nearly), while this thread
 * goes on with the next file.  Errors are left to that fsync. */
static void start_writeback(int fd)
{
#ifdef HAVE_SYNC_FILE_RANGE
    (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
#endif
}

int outfile_commit(outfile *o)
{
    if (o->id < 0) {
        errno = EINVAL;
        return -1;
    }
    int err = 0;
    if (o->f) {
        const int fd = fileno(o->f);
        if (fflush(o->f) != 0)
            err = errno;
        else if (ferror(o->f))
            err = lost_errno(fd);
        else
            start_writeback(fd);
        if (fclose(o->f) != 0 && !err)
            err = errno;
        o->f = NULL;
        free(o->buf);
        o->buf = NULL;
    } else {
        struct stat st;
        int fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) != 0)
            err = errno;
        else if (st.st_size == 0)
            err = ENODATA;
        else
            start_writeback(fd);
        if (fd >= 0)
            close(fd);
    }
    if (err) {
        outfile_abandon(o);
        errno = err;
        return -1;
    }
    sigset_t old;
    reg_lock(&old);
    reg.e[o->id].kind = E_STAGED;
    reg_unlock(&old);
    o->id = -1;
    o->tmp = NULL;
    return 0;
}

void outfile_abandon(outfile *o)
{
    if (o->f) {
        fclose(o->f);
        free(o->buf);
        o->buf = NULL;
    }
    o->f = NULL;
    if (o->id < 0)
        return;
    sigset_t old;
    reg_lock(&old);
    struct entry *e = &reg.e[o->id];
    unlink(e->tmp);
    char *t = e->tmp, *fn = e->final;
    *e = (struct entry){E_FREE, 0, NULL, NULL};
    reg_unlock(&old);
    free(t);
    free(fn);
    o->id = -1;
    o->tmp = NULL;
}

/* The directory of path into dir ("." without a slash); 0 if it fits. */
static int dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    const int n = !slash ? -1 : slash == path ? 1 : (int)(slash - path);
    const int w = n < 0 ? snprintf(dir, size, ".") : snprintf(dir, size, "%.*s", n, path);
    return w >= 0 && (size_t)w < size ? 0 : -1;
}

/* Free the names of the removed entries.  Only when no other thread uses
 * the registry (the handler ignores E_FREE entries). */
static void reg_sweep(void)
{
    for (size_t i = 0; i < reg.n; i++)
        if (reg.e[i].kind == E_FREE && (reg.e[i].tmp || reg.e[i].final)) {
            free(reg.e[i].tmp);
            free(reg.e[i].final);
            reg.e[i].tmp = reg.e[i].final = NULL;
        }
}

/* fsync the staged temporaries, all of them before any is renamed: a
 * failure (EIO, ENOSPC found at writeback) publishes nothing.  With the lock
 * held; 0, or an errno value with the final name in bad and that temporary
 * removed. */
static int sync_staged(char *bad, size_t size)
{
    for (size_t i = 0; i < reg.n; i++) {
        struct entry *e = &reg.e[i];
        if (e->kind != E_STAGED)
            continue;
        int err = 0, fd = open(e->tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0)
            err = errno;
        if (fd >= 0 && close(fd) != 0 && !err)
            err = errno;
        if (err) {
            snprintf(bad, size, "%s", e->final);
            unlink(e->tmp);
            e->kind = E_FREE;
            return err;
        }
    }
    return 0;
}

int outfile_publish(const char *cmd)
{
    char bad[4200] = "", dir[4096], prev[4096] = "";
    int err = 0;
    sigset_t old;
    reg_lock(&old);
    err = sync_staged(bad, sizeof bad);
    for (size_t i = 0; i < reg.n && !err; i++) {
        struct entry *e = &reg.e[i];
        if (e->kind != E_STAGED)
            continue;
        if (rename(e->tmp, e->final) != 0) {
            err = errno;
            snprintf(bad, sizeof bad, "%s", e->final);
            unlink(e->tmp);
        } else if (dir_of(e->final, dir, sizeof dir) == 0 && strcmp(dir, prev) != 0) {
            /* the renames last once their directory is on disk */
            int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (fd >= 0) {
                fsync(fd);
                close(fd);
            }
            strcpy(prev, dir);
        }
        e->kind = E_FREE; /* its names are freed outside the lock */
    }
    reg_unlock(&old);
    reg_sweep();
    if (err) {
        cli_error(cmd, "cannot write '%s': %s", bad, strerror(err));
        return CLI_EFAIL;
    }
    return CLI_OK;
}

int outfile_finish(const char *cmd, int rc)
{
    if (rc == CLI_OK)
        rc = outfile_publish(cmd);
    sigset_t old;
    reg_lock(&old);
    if (rc != CLI_OK)
        reg_cleanup();
    for (size_t i = 0; i < reg.n; i++)
        reg.e[i].kind = E_FREE;
    reg_unlock(&old);
    reg_sweep();
    reg_lock(&old);
    struct entry *e = reg.e;
    reg.e = NULL;
    reg.n = reg.cap = 0;
    reg_unlock(&old);
    free(e);
    return rc;
}

int outfile_mkdir(const char *dir)
{
    const size_t len = strlen(dir);
    char *buf = malloc(len + 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(buf, dir, len + 1);
    int err = 0;
    sigset_t old;
    for (char *p = buf + 1; !err; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        const char c = *p;
        *p = '\0';
        char *copy = strdup(buf);
        reg_lock(&old);
        /* made and registered under the lock: a signal removes it again */
        if (!copy || reg_room(&old) != 0)
            err = ENOMEM;
        else if (mkdir(buf, 0777) == 0) {
            reg_add(&old, E_DIR, 0, copy, NULL); /* room was made above */
            copy = NULL;
        } else if (errno != EEXIST)
            err = errno;
        reg_unlock(&old);
        free(copy);
        *p = c;
        if (c == '\0')
            break;
    }
    struct stat st;
    if (!err && (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)))
        err = errno ? errno : ENOTDIR;
    free(buf);
    errno = err;
    return err ? -1 : 0;
}

int outfile_probe(const char *dir)
{
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/.cosa-probe", dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    outfile o;
    FILE *f = outfile_open(&o, path, 1);
    if (!f)
        return -1;
    int err = 0;
    if (fputc('\n', f) == EOF || fflush(f) != 0 || fsync(fileno(f)) != 0)
        err = errno;
    outfile_abandon(&o);
    errno = err;
    return err ? -1 : 0;
}

pid_t outfile_spawn(const char *dir, int errfd, char *const argv[])
{
    fflush(NULL);
    sigset_t old;
    reg_lock(&old);
    if (reg_room(&old) != 0) {
        reg_unlock(&old);
        errno = ENOMEM;
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* the child: default signals (a pending one ends it), then gnuplot */
        const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
        for (int k = 0; k < 5; k++)
            signal(sigs[k], SIG_DFL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        dup2(errfd, 2);
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 1);
        if (chdir(dir) != 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    const int err = errno;
    if (pid > 0)
        reg_add(&old, E_CHILD, pid, NULL, NULL); /* room was made above */
    reg_unlock(&old);
    errno = err;
    return pid;
}

void outfile_reaped(pid_t pid)
{
    sigset_t old;
    reg_lock(&old);
    for (size_t i = 0; i < reg.n; i++)
        if (reg.e[i].kind == E_CHILD && reg.e[i].pid == pid)
            reg.e[i].kind = E_FREE;
    reg_unlock(&old);
}
