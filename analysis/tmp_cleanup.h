/* tmp_cleanup.h -- the unpacked FMUs and SSPs of this process removed from
 * the signal handler (analysis/tmp_cleanup.c): the library unpacks them to
 * $TMPDIR/cosa-fmu-PID-XXXXXX and removes them when it frees them; a
 * SIGINT or SIGTERM ends the process before that. */
#ifndef COSA_TMP_CLEANUP_H
#define COSA_TMP_CLEANUP_H

/* Remember $TMPDIR (else /tmp) and this process's prefix; 0, or -1 when
 * the names do not fit. */
int tmp_cleanup_init(void);

/* Async-signal-safe: remove every $TMPDIR/cosa-fmu-PID-* tree of this
 * process (open, getdents64, unlinkat only; no allocation). */
void tmp_cleanup_run(void);

#endif
