/* outfile.h -- every file the cosa command writes, written atomically.
 *
 * A file is written under a temporary name next to its final name
 * (".NAME.tmp-PID-N" in the same directory), then flushed and closed, its
 * writing to disk started ("staged").  Staged files are renamed into place
 * together when the command succeeds (outfile_finish) or when gnuplot is
 * about to read them (outfile_publish): every one is fsync()ed first, and
 * only when all are on disk is any renamed.  On a failure they are removed,
 * so the files of earlier runs stay as they were.  (The fsync waits at the
 * end, not after each file: the disk writes one file while the next is
 * computed.)  SIGINT, SIGTERM, SIGHUP and SIGPIPE kill and
 * reap the gnuplot children, remove every temporary and the empty output
 * directories this run created, and exit 128 + the signal number (130, 143,
 * 129, 141).
 *
 * The registry of temporaries, children and created directories is the
 * one process global of the command (the signal handler must reach it);
 * it is guarded by a spin lock taken with the signals blocked in the
 * calling thread, so the handler (which takes the lock and never gives it
 * back) sees it whole.  Thread-safe: the writers of `cosa map` run in
 * parallel. */
#ifndef COSA_OUTFILE_H
#define COSA_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

typedef struct outfile {
    FILE *f;         /* the stream of outfile_open; NULL after commit/abandon */
    long id;         /* registry entry, -1 for none */
    const char *tmp; /* the temporary name (the registry's copy) */
    char *buf;       /* the stream's buffer (OUTFILE_BUFSIZE; NULL: stdio's own),
                        freed when the stream is closed */
} outfile;

/* The buffer of an outfile_open stream: large records (a map's binary rows)
 * go out in a few big writes instead of one system call per 4 KiB. */
#define OUTFILE_BUFSIZE ((size_t)1 << 20)

/* Install the handlers of SIGINT, SIGTERM, SIGHUP and SIGPIPE (a signal
 * ignored by whoever started us stays ignored), and ignore SIGXFSZ so that a
 * file size limit is the error EFBIG.  0 on success, -1 (errno). */
int outfile_init(void);

/* Create the temporary of path (O_EXCL, mode 0666 & ~umask) and open it:
 * binary selects "wb".  NULL with errno on failure. */
FILE *outfile_open(outfile *o, const char *path, int binary);

/* Create the (empty) temporary of path for a child process to write into
 * (o->tmp); no stream.  0, or -1 with errno. */
int outfile_reserve(outfile *o, const char *path);

/* Flush and close o's stream (or, after outfile_reserve, check that the
 * child wrote a non-empty file), start its writing to disk and stage the
 * file.  0, or -1 with errno (ENODATA for an empty file); the temporary is
 * then removed. */
int outfile_commit(outfile *o);

/* Close and remove o's temporary; nothing for a committed or zeroed o. */
void outfile_abandon(outfile *o);

/* fsync the staged files, then rename them into place.  CLI_OK, or a
 * one-line error naming the file ("cannot write 'PATH': REASON") and
 * CLI_EFAIL (a failed fsync: none is renamed).  Like
 * outfile_finish, only while no other thread opens or commits files. */
int outfile_publish(const char *cmd);

/* The end of a command with exit code rc: publish on success (the result is
 * rc, or CLI_EFAIL if a rename failed); otherwise remove every temporary and
 * the empty directories outfile_mkdir created. */
int outfile_finish(const char *cmd, int rc);

/* mkdir -p dir, remembering the directories it creates (removed again if
 * the run fails while they are empty).  0, or -1 with errno. */
int outfile_mkdir(const char *dir);

/* Can a file be created and written in dir?  0, or -1 with errno. */
int outfile_probe(const char *dir);

/* The end of stdout (gnulib's close_stdout): flush it, check that no write
 * to it failed, close it.  CLI_OK, or the one line "cannot write to
 * standard output: REASON" and CLI_EFAIL (a full disk, /dev/full, a
 * closed pipe when SIGPIPE is ignored).  A stdout closed before we started
 * (>&-) is an error only if something was written to it.  A closed pipe
 * with SIGPIPE at its default ends the process with 141 before this.
 * report 0: close it quietly (the command failed and said why already). */
int outfile_close_stdout(const char *cmd, int report);

/* fork + exec argv[0] (a path) in directory dir with stdout on /dev/null and
 * stderr on errfd; the child is registered, so a signal kills it.  The pid,
 * or -1 with errno. */
pid_t outfile_spawn(const char *dir, int errfd, char *const argv[]);

/* The child pid has been reaped (waitpid): forget it. */
void outfile_reaped(pid_t pid);

#endif
