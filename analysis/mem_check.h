/* mem_check.h -- a memory need checked against the limits before any work. */
#ifndef COSA_MEM_CHECK_H
#define COSA_MEM_CHECK_H

/* CLI_OK if need bytes (a lower bound of what the work allocates) fit under
 * the address-space and data limits (ulimit -v, ulimit -d) and in the
 * machine's physical memory; otherwise the one line "WHAT take N MB, more
 * than the memory limit L MB (ulimit -v)" (or "... than this machine's
 * memory") followed by HINT when given, and CLI_EUSAGE. */
int cli_memory_check(const char *cmd, double need, const char *what, const char *hint);

#endif
