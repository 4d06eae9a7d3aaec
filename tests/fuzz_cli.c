/* fuzz_cli.c -- random argument vectors for every `cosa` subcommand.
 *
 *   fuzz_cli [--runs N] [--seed S] [--timeout SEC] [--keep] [--verbose] COSA SRCDIR
 *
 * The options of each subcommand are read from its own --help (every line
 * "  --name METAVAR"), so new options are fuzzed without touching this file.
 * A run draws a subcommand, a model (built-in, unknown, or a broken model
 * file made from data/models by truncation, byte flips and junk lines), up to
 * seven options with values from pools of valid, boundary and junk values
 * (NaN, inf, huge, negative, hex, empty, missing), sometimes an unknown
 * option or a stray argument, and runs cosa with a CPU time limit.
 *
 * A run fails the fuzz if cosa
 *   - is killed by a signal (a crash), or runs out of its time (a hang),
 *   - exits with a status other than 0, 1, 2,
 *   - exits 0 with an error on stderr (a line "cosa: SUB: ..." that is not
 *     a note), or non-zero with an empty stderr, or non-zero with a last
 *     stderr line that is not "cosa: ...",
 *   - exits non-zero and leaves a regular file in its output directory.
 * Each failure prints the exit and the argument vector, shell-quoted, to
 * reproduce it.  Exit status: 0 if no run failed, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAXSUB = 32, MAXOPT = 48, MAXARG = 40, NFILES = 8 };

struct opt {
    char name[40];
    char meta[48]; /* "" for a flag */
};

struct sub {
    char name[32];
    struct opt opt[MAXOPT];
    size_t nopt;
};

static uint64_t rng_state;

static uint64_t rnd(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static size_t pick(size_t n) { return (size_t)(rnd() % n); }
#define PICK(a) ((a)[pick(sizeof(a) / sizeof *(a))])

/* ---- what the subcommands accept, from their --help ---------------------- */

static FILE *run_help(const char *cosa, const char *sub)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s --help 2>/dev/null", cosa, sub ? sub : "");
    return popen(cmd, "r");
}

static size_t read_subcommands(const char *cosa, struct sub *subs)
{
    FILE *f = run_help(cosa, NULL);
    if (!f)
        return 0;
    char line[512];
    int on = 0;
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Subcommands:", 12) == 0) {
            on = 1;
            continue;
        }
        if (on && line[0] == '\n')
            on = 0;
        if (on && n < MAXSUB && sscanf(line, " %31s", subs[n].name) == 1)
            n++;
    }
    pclose(f);
    for (size_t i = 0; i < n; i++) {
        FILE *h = run_help(cosa, subs[i].name);
        if (!h)
            continue;
        while (fgets(line, sizeof line, h)) {
            /* "  --name META  text", "  -o, --output DIR  text", "  --a, --b  text" */
            char *p = strstr(line, "--");
            if (!p || strncmp(line, "  -", 3) != 0 || p > line + 8)
                continue;
            struct opt o = {{0}, {0}};
            if (sscanf(p, "--%39[a-z0-9-]", o.name) != 1 || strcmp(o.name, "help") == 0)
                continue;
            char *q = p + 2 + strlen(o.name);
            if (*q == ' ' && q[1] != ' ' && q[1] != '\n')
                sscanf(q + 1, "%47s", o.meta);
            if (o.meta[0] && (o.meta[0] == '-' || o.meta[strlen(o.meta) - 1] == ','))
                o.meta[0] = '\0';
            int dup = 0;
            for (size_t k = 0; k < subs[i].nopt; k++)
                dup |= strcmp(subs[i].opt[k].name, o.name) == 0;
            if (!dup && subs[i].nopt < MAXOPT)
                subs[i].opt[subs[i].nopt++] = o;
        }
        pclose(h);
    }
    return n;
}

/* ---- values ---------------------------------------------------------------- */

static const char *const numbers[] = {
    "1e-3", "1e-4", "3e-4", "0.01", "0.1", "0.3", "1", "2", "10", "1e5",  "0",    "-0",
    "-1",   "-1e-3", "nan", "NaN",  "inf", "-inf", "1e308", "1e-308", "4.9e-324", "1e-300",
    "0x10", "",      "abc", "1e",   "1,2", " 1",  "1 ",  "+1",   "1e400", "2.5"};
static const char *const counts[] = {"1", "2", "3", "4", "8", "0", "-1", "2.5", "1e3",
                                     "18446744073709551616", "x", "", "99999999999"};
static const char *const schemes[] = { /* the first 10 are valid */
    "zoh",  "foh",      "soh",        "p3",         "p8",  "zoh+mbcorr", "foh+ocorr",
    "soh+ecorr", "gs:zoh", "ZOH,FOH", "p9", "gs:foh+mbcorr", "zoh,zoh", "zoh,,foh", "", "junk",
    "p-1", "zoh+mbcorr,soh+mbcorr"};
static const char *const models[] = {"twomass",    "twomass-fd", "rotational", "rotational-defect",
                                     "chain",      "twomass-nl", "nosuch",     ""};
static const char *const params[] = {"m1", "m2", "ck", "dk", "c1", "n", "r", "nd", "dkmax",
                                     "J1", "kc", "v1", "nosuch", "", "assume.ck"};
static const char *const formats[] = {"png", "svg", "pdf", "md", "csv", "txt", "", "png,svg"};
static const char *const words[] = {"stable", "accurate", "local", "global", "both", "output",
                                    "connection", "rk4", "euler", "cvode", "exact",
                                    "symplectic-euler", "mbcorr", "1", "2", "3", "4", "rho",
                                    "e_global", "e_local", "e_local_ref", "dt", "junk", ""};

/* In a "valid" run values come from the leading, valid part of each pool
 * (so that the commands get past their checks and compute). */
static int valid_run;
#define VPICK(a, nvalid) ((a)[valid_run ? pick(nvalid) : pick(sizeof(a) / sizeof *(a))])

static void value(const char *meta, const char *dir, char *buf, size_t size)
{
    const int junk = pick(valid_run ? 40 : 10) == 0;
    if (junk) {
        snprintf(buf, size, "%s", PICK(numbers));
        return;
    }
    if (strcmp(meta, "DT") == 0 || strcmp(meta, "H") == 0 || strcmp(meta, "DT[,DT...]") == 0) {
        snprintf(buf, size, "%s", VPICK(numbers, 5));
        return;
    }
    if (strstr(meta, "=LO") || strstr(meta, "LO:")) { /* an axis NAME=LO:HI:log|lin:N */
        const char *name = pick(5) == 0 ? "dt" : VPICK(params, 4);
        snprintf(buf, size, "%s=%s:%s:%s:%s", name, VPICK(numbers, 10), VPICK(numbers, 10),
                 pick(2) ? "log" : "lin", VPICK(counts, 4));
    } else if (strstr(meta, "=")) { /* NAME=VALUE, NAME=LO:HI */
        if (pick(3) == 0)
            snprintf(buf, size, "%s=%s:%s", PICK(params), PICK(numbers), PICK(numbers));
        else
            snprintf(buf, size, "%s=%s", VPICK(params, 4), VPICK(numbers, 10));
    } else if (strstr(meta, "SCHEME") || strcmp(meta, "S[,S...]") == 0) {
        snprintf(buf, size, "%s", VPICK(schemes, 10));
    } else if (strstr(meta, "DIR") || strstr(meta, "PATH") || strstr(meta, "FILE")) {
        snprintf(buf, size, "%s/%s", dir, pick(4) ? "out" : "a/b/../c");
    } else if (strcmp(meta, "NAME") == 0 || strcmp(meta, "M") == 0) {
        snprintf(buf, size, "%s", pick(3) || valid_run ? VPICK(models, 6) : "a b/c\"d");
    } else if (strcmp(meta, "N") == 0 || strstr(meta, "GRID")) {
        snprintf(buf, size, "%s", VPICK(counts, 5));
    } else if (strstr(meta, "FMT") || strstr(meta, "F")) {
        snprintf(buf, size, "%s", VPICK(formats, 5));
    } else if (strstr(meta, "LIST")) {
        const int k = (int)pick(3);
        snprintf(buf, size, "%s", k == 0 ? PICK(schemes) : k == 1 ? "1e-3,1e-4" : "1,2");
    } else if (strchr(meta, '|') || strchr(meta, '[')) {
        snprintf(buf, size, "%s", PICK(words));
    } else {
        snprintf(buf, size, "%s", VPICK(numbers, 10));
    }
}

/* ---- broken model files ------------------------------------------------------ */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf)
        buf[*len] = '\0';
    return buf;
}

static void make_files(const char *srcdir, const char *dir, char files[NFILES][4096])
{
    static const char *const src[] = {"twomass.cosa", "chain6.cosa", "rotational.cosa",
                                      "twomass-fd.cosa"};
    static const char *const junk[] = {"param x = nan\n", "subsystem\n", "A = [ 1, 2\n",
                                       "connect A.y -> B.u\n", "\x01\x02\xff\n", "end\nend\n",
                                       "param m1 = 0 (> 0)\n", "tend -1\n"};
    for (int i = 0; i < NFILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/data/models/%s", srcdir, src[i % 4]);
        size_t len = 0;
        char *t = slurp(path, &len);
        snprintf(files[i], sizeof files[i], "%s/broken%d.cosa", dir, i);
        FILE *f = fopen(files[i], "wb");
        if (!f) {
            free(t);
            continue;
        }
        if (t && len) {
            switch (i % 4) {
            case 0: /* truncated */
                fwrite(t, 1, pick(len), f);
                break;
            case 1: /* a few bytes flipped */
                for (int k = 0; k < 4; k++)
                    t[pick(len)] ^= (char)(1 + pick(255));
                fwrite(t, 1, len, f);
                break;
            case 2: /* a junk line inserted */
            {
                const size_t at = pick(len);
                fwrite(t, 1, at, f);
                fputs(PICK(junk), f);
                fwrite(t + at, 1, len - at, f);
                break;
            }
            default: /* intact (to reach the commands behind the reader) */
                fwrite(t, 1, len, f);
            }
        }
        fclose(f);
        free(t);
    }
}

/* ---- one run ------------------------------------------------------------------ */

static void shell_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

static int has_regular_file(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISREG(st.st_mode))
            found = 1;
        else if (S_ISDIR(st.st_mode))
            found = has_regular_file(p);
    }
    closedir(d);
    return found;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* The verdict of one run: NULL if fine, else what went wrong. */
/* CPU time (user + system) the process pid has used so far, in seconds
 * (from /proc/PID/stat); a large number when it cannot be read, so that only
 * the absolute wall limit applies then. */
static double child_cpu_seconds(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1e30;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    unsigned long ut = 0, st = 0;
    /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt
     * majflt cmajflt utime stime */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 1e30;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static const char *judge(int status, const char *err, size_t errlen, int files_left,
                         char *why, size_t size)
{
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        snprintf(why, size, sig == SIGXCPU || sig == SIGKILL ? "hang (time limit, signal %d)"
                                                             : "crash (signal %d)",
                 sig);
        return why;
    }
    const int code = WEXITSTATUS(status);
    if (code != 0 && code != 1 && code != 2) {
        snprintf(why, size, "exit status %d", code);
        return why;
    }
    if (code != 0 && errlen == 0)
        return "non-zero exit with an empty stderr";
    /* lines of stderr: errors are "cosa: SUB: ..." and not notes */
    const char *last = NULL;
    for (const char *p = err; p < err + errlen;) {
        const char *nl = memchr(p, '\n', (size_t)(err + errlen - p));
        const size_t n = nl ? (size_t)(nl - p) : (size_t)(err + errlen - p);
        if (n > 0) {
            last = p;
            if (code == 0 && strncmp(p, "cosa: ", 6) == 0) {
                const char *note = strstr(p, ": note: ");
                if (!note || note > p + n) {
                    snprintf(why, size, "exit 0 with an error on stderr: %.*s", (int)n, p);
                    return why;
                }
            }
        }
        p += n + 1;
    }
    if (code != 0 && (!last || strncmp(last, "cosa: ", 6) != 0))
        return "non-zero exit without a 'cosa: ...' line last on stderr";
    if (code != 0 && files_left)
        return "non-zero exit left a file in the output directory";
    return NULL;
}

int main(int argc, char **argv)
{
    long runs = 600, seed = 1, timeout = 20;
    int keep = 0, verbose = 0, ai = 1;
    for (; ai < argc && strncmp(argv[ai], "--", 2) == 0; ai++) {
        if (strcmp(argv[ai], "--keep") == 0)
            keep = 1;
        else if (strcmp(argv[ai], "--verbose") == 0)
            verbose = 1;
        else if (ai + 1 < argc && strcmp(argv[ai], "--runs") == 0)
            runs = atol(argv[++ai]);
        else if (ai + 1 < argc && strcmp(argv[ai], "--seed") == 0)
            seed = atol(argv[++ai]);
        else if (ai + 1 < argc && strcmp(argv[ai], "--timeout") == 0)
            timeout = atol(argv[++ai]);
        else
            break;
    }
    if (argc - ai != 2 || runs < 1 || timeout < 1) {
        fprintf(stderr, "usage: fuzz_cli [--runs N] [--seed S] [--timeout SEC] [--keep] [--verbose] COSA "
                        "SRCDIR\n");
        return 2;
    }
    const char *cosa = argv[ai], *srcdir = argv[ai + 1];
    rng_state = (uint64_t)seed * 0x9E3779B97F4A7C15ull + 1;

    struct sub *subs = calloc(MAXSUB, sizeof *subs);
    const size_t nsub = subs ? read_subcommands(cosa, subs) : 0;
    if (nsub < 10) {
        fprintf(stderr, "fuzz_cli: found only %zu subcommands in '%s --help'\n", nsub, cosa);
        return 2;
    }
    char base[] = "/tmp/cosa_fuzz_XXXXXX";
    if (!mkdtemp(base)) {
        perror("fuzz_cli: mkdtemp");
        return 2;
    }
    char files[NFILES][4096];
    make_files(srcdir, base, files);
    char errpath[4200], outpath[4200], rundir[4200];
    snprintf(errpath, sizeof errpath, "%s/stderr", base);
    snprintf(outpath, sizeof outpath, "%s/stdout", base);
    snprintf(rundir, sizeof rundir, "%s/run", base);

    long failed = 0, by_code[3] = {0, 0, 0};
    for (long r = 0; r < runs; r++) {
        static char store[MAXARG][4400];
        char *av[MAXARG + 2];
        int n = 0;
        av[n++] = (char *)cosa;
        const struct sub *s = &subs[pick(nsub)];
        av[n++] = (char *)s->name;
        remove_tree(rundir);
        mkdir(rundir, 0777);
        /* bench's defaults are a full benchmark (minutes on a loaded
         * machine): a small grid first, the fuzzed options after it */
        if (strcmp(s->name, "bench") == 0) {
            av[n++] = "--grid";
            av[n++] = "4";
            av[n++] = "--egrid";
            av[n++] = "2";
        }
        /* the model, most of the time */
        valid_run = pick(2);
        const size_t mk = pick(8);
        if (mk < 4) {
            av[n++] = "--model";
            av[n++] = (char *)VPICK(models, 6);
        } else if (mk < 6) {
            av[n++] = "--model-file";
            av[n++] = files[pick(NFILES)];
        }
        /* in a valid run first the options most commands require */
        static const char *const needed[] = {"scheme", "dt", "criterion", "x", "y", "tol",
                                             "integrator", "in-order", "out-order"};
        for (size_t k = 0; valid_run && k < sizeof needed / sizeof *needed; k++)
            for (size_t j = 0; j < s->nopt && n + 3 < MAXARG; j++)
                if (strcmp(s->opt[j].name, needed[k]) == 0 && pick(10) != 0) {
                    snprintf(store[n], sizeof store[n], "--%s", needed[k]);
                    av[n] = store[n];
                    n++;
                    if (strcmp(needed[k], "criterion") == 0)
                        snprintf(store[n], sizeof store[n], "%s", words[pick(3)]);
                    else if (strcmp(needed[k], "integrator") == 0)
                        snprintf(store[n], sizeof store[n], "%s", pick(2) ? "euler" : "rk4");
                    else if (strcmp(needed[k], "in-order") == 0 || strcmp(needed[k], "out-order") == 0)
                        snprintf(store[n], sizeof store[n], "%zu", pick(3));
                    else if (strcmp(needed[k], "tol") == 0)
                        snprintf(store[n], sizeof store[n], "%s", pick(2) ? "0.01" : "1e-3");
                    else
                        value(s->opt[j].meta, rundir, store[n], sizeof store[n]);
                    av[n] = store[n];
                    n++;
                }
        /* options */
        const size_t nopt = pick(valid_run ? 4 : 8);
        for (size_t k = 0; k < nopt && n + 3 < MAXARG && s->nopt; k++) {
            const struct opt *o = &s->opt[pick(s->nopt)];
            if (valid_run) { /* no option twice (but --set), no second model */
                int dup = strncmp(o->name, "model", 5) == 0;
                char flag[48];
                snprintf(flag, sizeof flag, "--%s", o->name);
                for (int j = 2; j < n && !dup; j++)
                    dup = strcmp(av[j], flag) == 0 && strcmp(o->name, "set") != 0;
                if (dup)
                    continue;
            }
            snprintf(store[n], sizeof store[n], "--%s", o->name);
            av[n] = store[n];
            n++;
            if (o->meta[0] && pick(20) != 0) { /* sometimes the value is missing */
                value(o->meta, rundir, store[n], sizeof store[n]);
                av[n] = store[n];
                n++;
            }
        }
        if (!valid_run && pick(6) == 0)
            av[n++] = pick(2) ? "--no-such-option" : "stray";
        av[n] = NULL;

        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fuzz_cli: fork");
            break;
        }
        if (pid == 0) {
            int fe = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
            int fo = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
            int fi = open("/dev/null", O_RDONLY);
            if (fe < 0 || fo < 0 || fi < 0 || chdir(rundir) != 0)
                _exit(127);
            dup2(fi, 0);
            dup2(fo, 1);
            dup2(fe, 2);
            /* CPU time limit: SIGXCPU at the soft limit, SIGKILL at the hard */
            struct rlimit rl = {(rlim_t)timeout, (rlim_t)timeout + 2};
            setrlimit(RLIMIT_CPU, &rl);
            setenv("OMP_NUM_THREADS", "1", 1);
            setenv("OPENBLAS_NUM_THREADS", "1", 1);
            setenv("COSA_GNUPLOT", "/nonexistent/gnuplot", 1); /* no rendering */
            execv(cosa, av);
            _exit(127);
        }
        /* wall-clock limit too, for a process that sleeps or blocks: past
         * 3 timeouts of wall time a child that has used under 1 % of it as
         * CPU time is not computing (a runnable child on a machine with
         * load L per core still gets about 1/L of a core, and L < 100 here);
         * one still computing is left to RLIMIT_CPU, up to 20 timeouts of
         * wall time.  A fixed wall limit failed valid long runs (cosa bench)
         * on a loaded machine. */
        int status = 0;
        const time_t t0 = time(NULL);
        for (;;) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid)
                break;
            if (w < 0 && errno != EINTR)
                break;
            const time_t wall = time(NULL) - t0;
            if ((wall > 3 * timeout && child_cpu_seconds(pid) < 0.01 * (double)wall) ||
                wall > 20 * timeout) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        size_t errlen = 0;
        char *err = slurp(errpath, &errlen);
        char why[512];
        const char *bad = judge(status, err ? err : "", err ? errlen : 0,
                                has_regular_file(rundir), why, sizeof why);
        if (WIFEXITED(status) && WEXITSTATUS(status) <= 2)
            by_code[WEXITSTATUS(status)]++;
        if (verbose && !bad) {
            printf("run %ld: exit %d: ", r, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            for (int k = 1; k < n; k++) {
                shell_quote(stdout, av[k]);
                putchar(' ');
            }
            printf("\n  %.200s%s", err && errlen ? err : "(no stderr)\n",
                   err && errlen && err[errlen - 1] == '\n' ? "" : "\n");
        }
        if (bad) {
            failed++;
            printf("FAIL run %ld: %s\n  ", r, bad);
            for (int k = 0; k < n; k++) {
                shell_quote(stdout, av[k]);
                putchar(k + 1 < n ? ' ' : '\n');
            }
            if (err && errlen)
                printf("  stderr: %.300s%s", err, err[errlen - 1] == '\n' ? "" : "\n");
        }
        free(err);
    }
    printf("fuzz_cli: seed %ld, %ld runs over %zu subcommands: exit 0: %ld, 1: %ld, 2: %ld; "
           "%ld failed\n",
           seed, runs, nsub, by_code[0], by_code[1], by_code[2], failed);
    if (!keep)
        remove_tree(base);
    else
        printf("fuzz_cli: files kept in %s\n", base);
    free(subs);
    return failed ? 1 : 0;
}
