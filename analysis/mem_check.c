/* mem_check.c -- a memory need checked against the limits before any work
 * (mem_check.h): a run that cannot fit is refused at once, with its size,
 * instead of computing and then failing with "out of memory". */
#include "config.h"
#include "mem_check.h"
#include "cli.h"

#include <sys/resource.h>
#include <unistd.h>

int cli_memory_check(const char *cmd, double need, const char *what, const char *hint)
{
    static const int res[2] = {RLIMIT_AS, RLIMIT_DATA};
    static const char *const names[2] = {"the memory limit", "the data limit"};
    static const char *const shell[2] = {" (ulimit -v)", " (ulimit -d)"};
    double limit[3];
    const char *name[3], *how[3];
    int n = 0;
    for (int k = 0; k < 2; k++) {
        struct rlimit rl;
        if (getrlimit(res[k], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
            limit[n] = (double)rl.rlim_cur;
            name[n] = names[k];
            how[n++] = shell[k];
        }
    }
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) {
        limit[n] = (double)pages * (double)size;
        name[n] = "this machine's memory";
        how[n++] = "";
    }
    for (int k = 0; k < n; k++)
        if (need > limit[k]) {
            cli_error(cmd, "%s take %.0f MB, more than %s %.0f MB%s%s%s", what, need / 1048576.0,
                      name[k], limit[k] / 1048576.0, how[k], hint ? "; " : "", hint ? hint : "");
            return CLI_EUSAGE;
        }
    return CLI_OK;
}
