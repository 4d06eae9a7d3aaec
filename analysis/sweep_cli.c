/* sweep_cli.c -- shared pieces of `cosa map`, `cosa curve`, `cosa bench`. */
#include "config.h"
#include "sweep_cli.h"
#include "outfile.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int scli_number(const char *text, double *out)
{
    return cli_parse_double(text, out); /* 10^X included */
}

/* What is wrong with a range "LO:HI:log|lin:N" (parse_range). */
enum range_fault {
    RANGE_OK = 0,
    RANGE_SYNTAX,  /* not four fields of numbers and log|lin          */
    RANGE_LOGPOS,  /* a log axis with LO or HI <= 0                     */
    RANGE_COUNT,   /* N is not a whole number >= 1                      */
    RANGE_TOOMANY, /* N beyond the cap (checked before any value)       */
    RANGE_ONE,     /* N = 1 with HI != LO: HI would be ignored          */
    RANGE_SAME,    /* N >= 2 with LO = HI: N identical points           */
    RANGE_DUP      /* two neighbouring points round to the same double  */
};

/* N of a range: a whole number >= 1 (cli_parse_size), or one too large for
 * it (digits beyond SIZE_MAX, a whole number beyond 2^53 such as 1e16):
 * RANGE_TOOMANY with *n = SIZE_MAX. */
static enum range_fault parse_count(const char *text, size_t *n)
{
    if (cli_parse_size(text, n) == 0)
        return RANGE_OK;
    double v;
    if ((*text && strspn(text, "0123456789") == strlen(text) && strspn(text, "0") < strlen(text)) ||
        (cli_parse_double(text, &v) == CLI_NUM_OK && v == floor(v) && v > 9007199254740992.0) ||
        (cli_parse_double(text, &v) == CLI_NUM_OVERFLOW)) {
        *n = SIZE_MAX;
        return RANGE_TOOMANY;
    }
    return RANGE_COUNT;
}

/* The index k >= 1 of the first point of ax equal to the one before it (a
 * range too narrow for its N: 1:1.0000000000000002:lin:3 has the point 1
 * twice), 0 when all neighbours differ.  The points are the ones the sweep
 * computes (cosa_sweep_axis_value), so what is checked is what runs. */
static size_t first_duplicate(const cosa_sweep_axis *ax)
{
    double prev = cosa_sweep_axis_value(ax, 0);
    for (size_t k = 1; k < ax->n; k++) {
        const double v = cosa_sweep_axis_value(ax, k);
        if (v == prev)
            return k;
        prev = v;
    }
    return 0;
}

/* Split "LO:HI:log|lin:N" (no name) into ax, refusing what would compute
 * nonsense or too much before any value is computed: N beyond cap, N = 1
 * with HI != LO, N >= 2 with LO = HI; then (N within the cap) two
 * neighbouring points that are the same double. */
static enum range_fault parse_range(const char *text, cosa_sweep_axis *ax, size_t cap)
{
    char buf[256];
    if (!text || strlen(text) >= sizeof buf)
        return RANGE_SYNTAX;
    strcpy(buf, text);
    char *f[5];
    size_t nf = 0;
    char *p = buf;
    for (;;) {
        if (nf == 5)
            return RANGE_SYNTAX;
        f[nf++] = p;
        char *c = strchr(p, ':');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    if (nf != 4)
        return RANGE_SYNTAX;
    if (scli_number(f[0], &ax->lo) != 0 || scli_number(f[1], &ax->hi) != 0)
        return RANGE_SYNTAX;
    if (strcmp(f[2], "log") == 0)
        ax->log = 1;
    else if (strcmp(f[2], "lin") == 0)
        ax->log = 0;
    else
        return RANGE_SYNTAX;
    size_t n;
    const enum range_fault c = parse_count(f[3], &n);
    ax->n = n;
    if (c != RANGE_OK)
        return c;
    if (ax->log && !(ax->lo > 0.0 && ax->hi > 0.0))
        return RANGE_LOGPOS;
    if (n > cap)
        return RANGE_TOOMANY;
    if (n == 1 && ax->lo != ax->hi)
        return RANGE_ONE;
    if (n >= 2 && ax->lo == ax->hi)
        return RANGE_SAME;
    return first_duplicate(ax) ? RANGE_DUP : RANGE_OK;
}

/* The one line of a refused range text (of option opt, named name or "")
 * into msg, without "cosa: CMD: ". */
static void range_text(const char *opt, const char *name, const char *text, enum range_fault r,
                       const cosa_sweep_axis *ax, size_t cap, char *msg, size_t size)
{
    const char *eq = *name ? "=" : "";
    const size_t k = r == RANGE_DUP ? first_duplicate(ax) : 0;
    char num[32];
    switch (r) {
    case RANGE_LOGPOS:
        snprintf(msg, size, "%s %s: a log axis needs LO > 0 and HI > 0, got '%s'", opt, name,
                 text);
        break;
    case RANGE_COUNT:
        snprintf(msg, size, "%s %s%s%s: N must be a whole number >= 1", opt, name, eq, text);
        break;
    case RANGE_TOOMANY:
        if (ax->n == SIZE_MAX)
            snprintf(msg, size, "%s %s%s%s: too many points (more than %zu; raise the cap with "
                                "--max-points N)", opt, name, eq, text, cap);
        else
            snprintf(msg, size, "%s %s%s%s: %zu points, more than the cap %zu (raise it with "
                                "--max-points N)", opt, name, eq, text, ax->n, cap);
        break;
    case RANGE_ONE:
        snprintf(msg, size, "%s %s%s%s: one point takes LO alone (HI would be ignored): give LO "
                            "= HI or N >= 2", opt, name, eq, text);
        break;
    case RANGE_SAME:
        snprintf(msg, size, "%s %s%s%s: LO = HI gives %zu identical points: give N = 1 or HI != LO",
                 opt, name, eq, text, ax->n);
        break;
    case RANGE_DUP:
        snprintf(msg, size, "%s %s%s%s: points %zu and %zu are both %s (the range is too narrow "
                            "for %zu points): give a wider range or a smaller N", opt, name, eq,
                 text, k, k + 1, cosa_number_text(num, sizeof num, cosa_sweep_axis_value(ax, k)),
                 ax->n);
        break;
    default:
        snprintf(msg, size, "%s expects %sLO:HI:log|lin:N, got '%s%s%s'", opt,
                 *name ? "NAME=" : "", name, eq, text);
    }
}

/* The one line of a refused range text, CLI_EUSAGE. */
static int range_error(const char *cmd, const char *opt, const char *name, const char *text,
                       enum range_fault r, const cosa_sweep_axis *ax, size_t cap)
{
    char msg[1024];
    range_text(opt, name, text, r, ax, cap, msg, sizeof msg);
    cli_error(cmd, "%s", msg);
    return CLI_EUSAGE;
}

int scli_range(const char *opt, const char *text, size_t cap, cosa_sweep_axis *ax, char *msg,
               size_t size)
{
    *ax = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 0, 0};
    const enum range_fault r = parse_range(text, ax, cap);
    if (r == RANGE_OK)
        return 0;
    range_text(opt, "", text, r, ax, cap, msg, size);
    return r == RANGE_TOOMANY ? -2 : -1;
}

int scli_axis(const char *cmd, const char *opt, const char *text, char *name, size_t namesz,
              cosa_sweep_axis *ax, size_t cap)
{
    const char *eq = text ? strchr(text, '=') : NULL;
    if (!eq || eq == text || (size_t)(eq - text) >= namesz) {
        cli_error(cmd, "%s expects NAME=LO:HI:log|lin:N, got '%s'", opt, text ? text : "");
        return CLI_EUSAGE;
    }
    memcpy(name, text, (size_t)(eq - text));
    name[eq - text] = '\0';
    *ax = (cosa_sweep_axis){-1, 0.0, 0.0, 0, 0, 0};
    const enum range_fault r = parse_range(eq + 1, ax, cap);
    return r == RANGE_OK ? CLI_OK : range_error(cmd, opt, name, eq + 1, r, ax, cap);
}

int scli_row_axis_text(const opt_row *row, const char *value, void *dst, char *msg, size_t size)
{
    const char *eq = strchr(value, '=');
    char opt[64], name[256];
    snprintf(opt, sizeof opt, "--%s", row->name);
    if (!eq || eq == value) {
        snprintf(msg, size, "%s expects NAME=LO:HI:log|lin:N, got '%s'", opt, value);
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)(eq - value), value);
    cosa_sweep_axis ax = {-1, 0.0, 0.0, 0, 0, 0};
    /* cap 0: a text without fault is RANGE_TOOMANY (the cap is checked later) */
    const enum range_fault r = parse_range(eq + 1, &ax, 0);
    if (r != RANGE_TOOMANY) {
        range_text(opt, name, eq + 1, r, &ax, 0, msg, size);
        return -1;
    }
    *(const char **)dst = value;
    return 0;
}

int scli_axis_param(const char *cmd, const char *opt, const cosa_model *m, const char *name,
                    cosa_sweep_axis *ax)
{
    static const char prefix[] = "assume.";
    ax->assumed = strncmp(name, prefix, sizeof prefix - 1) == 0;
    const char *p = ax->assumed ? name + sizeof prefix - 1 : name;
    ax->param = cosa_model_param_index(m, p);
    /* the iteration settings of imp:/gs-imp: schemes (a model parameter of
     * the same name comes first) */
    if (ax->param < 0 && !ax->assumed && strcmp(p, "relax") == 0)
        ax->param = COSA_AXIS_RELAX;
    if (ax->param < 0 && !ax->assumed && strcmp(p, "iterations") == 0)
        ax->param = COSA_AXIS_ITERATIONS;
    if (ax->assumed && ax->param >= 0 && m->params[ax->param].kind == COSA_PARAM_INITIAL) {
        cli_error(cmd, "%s %s: '%s' is an initial state, not part of the assumed model (which "
                       "only the output correction uses)", opt, name, p);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

const char *scli_axis_name(const cosa_model *m, const cosa_sweep_axis *ax)
{
    if (ax->param == COSA_AXIS_RELAX)
        return "relax";
    if (ax->param == COSA_AXIS_ITERATIONS)
        return "iterations";
    return ax->param >= 0 ? m->params[ax->param].name : "?";
}

void scli_axis_label(const cosa_model *m, const cosa_sweep_axis *ax, char *buf, size_t size)
{
    if (ax->param < -1) {
        snprintf(buf, size, "%s", ax->param == COSA_AXIS_RELAX ? "relaxation ω" : "iterations k");
        return;
    }
    const cosa_param *p = &m->params[ax->param];
    const char *pre = ax->assumed ? "assumed " : "";
    if (p->unit && *p->unit)
        snprintf(buf, size, "%s%s [%s]", pre, p->name, p->unit);
    else
        snprintf(buf, size, "%s%s", pre, p->name);
}

void scli_header_assume(FILE *f, const cli_model *m, const cosa_sweep_axis *const *axes,
                        size_t nax)
{
    for (size_t k = 0; k < m->model->nparam; k++) {
        int swept = 0;
        for (size_t a = 0; a < nax; a++)
            swept |= axes[a]->assumed && axes[a]->param == (int)k;
        if (swept)
            fprintf(f, "# assume %s (swept)\n", m->model->params[k].name);
        else if (m->assumed && m->assumed[k])
            fprintf(f, "# assume %s %.17g\n", m->model->params[k].name, m->apar[k]);
    }
}

/* A number for a title: %.6g with "e+09" written "e9", "e-05" "e-5". */
static void title_num(char *buf, size_t size, double v)
{
    char t[48];
    snprintf(t, sizeof t, "%.6g", v);
    char *e = strchr(t, 'e');
    if (e) {
        char *d = e + 1;
        const char sign = *d;
        if (sign == '+' || sign == '-')
            d++;
        while (*d == '0' && d[1])
            d++;
        snprintf(buf, size, "%.*se%s%s", (int)(e - t), t, sign == '-' ? "-" : "", d);
    } else
        snprintf(buf, size, "%s", t);
}

void scli_title_sets(const cli_model *m, const cosa_sweep_axis *const *axes, size_t nax,
                     char *buf, size_t size)
{
    const cosa_model *md = m->model;
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < md->nparam; k++) {
            int given = 0, swept = 0;
            if (pass == 0) {
                for (size_t i = 0; i < m->nset; i++)
                    given |= cosa_model_param_index(md, m->set_name[i]) == (int)k;
            } else
                given = m->assumed && m->assumed[k];
            for (size_t a = 0; a < nax; a++)
                swept |= axes[a]->param == (int)k && (axes[a]->assumed ? 1 : 0) == pass;
            if (!given || swept)
                continue;
            char v[48];
            title_num(v, sizeof v, pass ? m->apar[k] : m->par[k]);
            int n = snprintf(buf + len, size > len ? size - len : 0, ", %s%s = %s",
                             pass ? "assumed " : "", md->params[k].name, v);
            if (n < 0 || len + (size_t)n >= size) {
                buf[len] = '\0'; /* no room: leave the title as it was */
                return;
            }
            len += (size_t)n;
        }
}

/* A comma-separated list has no empty item ("a,,b", ",a", "a,"). */
static int list_items_ok(const char *cmd, const char *opt, const char *text)
{
    size_t len = strlen(text);
    if (len == 0 || text[0] == ',' || text[len - 1] == ',' || strstr(text, ",,")) {
        cli_error(cmd, "%s: empty item in the list '%s'", opt, text);
        return 0;
    }
    return 1;
}

int scli_dt_list(const char *cmd, const char *text, double **dt, size_t *n, size_t cap)
{
    *dt = NULL;
    *n = 0;
    if (!text) {
        cli_error(cmd, "--dt is required (see 'cosa %s --help')", cmd);
        return CLI_EUSAGE;
    }
    if (strchr(text, ':')) {
        cosa_sweep_axis ax = {-1, 0, 0, 0, 0, 0};
        const enum range_fault r = parse_range(text, &ax, cap);
        if (r != RANGE_OK && r != RANGE_SYNTAX && r != RANGE_LOGPOS)
            return range_error(cmd, "--dt", "", text, r, &ax, cap);
        if (r != RANGE_OK || !(ax.lo > 0.0) || !(ax.hi > 0.0)) {
            cli_error(cmd, "--dt expects DT[,DT...] or LO:HI:log|lin:N with positive steps, "
                           "got '%s'",
                      text);
            return CLI_EUSAGE;
        }
        *dt = malloc(ax.n * sizeof(double));
        if (!*dt) {
            cli_error(cmd, "out of memory");
            return CLI_EFAIL;
        }
        for (size_t k = 0; k < ax.n; k++)
            (*dt)[k] = cosa_sweep_axis_value(&ax, k);
        *n = ax.n;
        return CLI_OK;
    }
    if (!list_items_ok(cmd, "--dt", text))
        return CLI_EUSAGE;
    size_t items = 1;
    for (const char *p = text; *p; p++)
        items += *p == ',';
    *dt = malloc(items * sizeof(double));
    char *buf = strdup(text);
    if (!*dt || !buf) {
        free(buf);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (scli_number(tok, &v) != 0 || !(v > 0.0)) {
            cli_error(cmd, "--dt must be positive finite numbers, got '%s'", tok);
            free(buf);
            return CLI_EUSAGE;
        }
        for (size_t j = 0; j < *n; j++)
            if ((*dt)[j] == v) {
                cli_error(cmd, "--dt lists %g twice (as '%s')", v, tok);
                free(buf);
                return CLI_EUSAGE;
            }
        (*dt)[(*n)++] = v;
    }
    free(buf);
    if (*n == 0) {
        cli_error(cmd, "--dt needs at least one macro step");
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

int scli_schemes(const char *cmd, const char *text, double alpha, cosa_scheme **s, size_t *n)
{
    *s = NULL;
    *n = 0;
    if (!text) {
        cli_error(cmd, "--scheme is required (see 'cosa %s --help')", cmd);
        return CLI_EUSAGE;
    }
    if (!list_items_ok(cmd, "--scheme", text))
        return CLI_EUSAGE;
    size_t cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == ',';
    *s = calloc(cap, sizeof **s);
    char *buf = strdup(text);
    if (!*s || !buf) {
        free(buf);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    char *save = NULL;
    int rc = CLI_OK;
    for (char *tok = strtok_r(buf, ",", &save); tok && rc == CLI_OK;
         tok = strtok_r(NULL, ",", &save)) {
        rc = cli_scheme(cmd, tok, &(*s)[*n]);
        for (size_t j = 0; rc == CLI_OK && j < *n; j++) {
            const cosa_scheme *a = &(*s)[j], *b = &(*s)[*n];
            if (a->order == b->order && a->corr == b->corr && a->exec == b->exec &&
                a->implicit == b->implicit && a->q_extra == b->q_extra) {
                char nm[64];
                cosa_scheme_name(b, nm, sizeof nm);
                cli_error(cmd, "--scheme lists %s twice (as '%s')", nm, tok);
                rc = CLI_EUSAGE;
            }
        }
        if (rc == CLI_OK)
            (*s)[(*n)++].alpha = alpha;
    }
    free(buf);
    if (rc == CLI_OK && *n == 0) {
        cli_error(cmd, "--scheme needs at least one scheme");
        rc = CLI_EUSAGE;
    }
    return rc;
}

int scli_metric(const char *cmd, const char *text, cosa_metric *m)
{
    if (cosa_metric_parse(text, m) != COSA_OK) {
        cli_error(cmd, "unknown metric '%s' (expected rho, e_global, e_local, e_local_ref or "
                       "rho_iter)",
                  text);
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

double scli_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void scli_progress_init(scli_progress *p, const char *cmd)
{
    p->cmd = cmd;
    p->tty = isatty(2);
    p->t0 = p->last = scli_now();
}

void scli_progress_fn(size_t done, size_t total, void *user_data)
{
    scli_progress *p = user_data;
    const double now = scli_now(), el = now - p->t0;
    const int end = done >= total;
    if (!end && now - p->last < (p->tty ? 0.25 : 5.0))
        return;
    p->last = now;
    const double rate = el > 0.0 ? (double)done / el : 0.0;
    const double left = rate > 0.0 ? (double)(total - done) / rate : 0.0;
    if (end)
        fprintf(stderr, "%s%s: %zu points in %.1f s (%.3g points/s)%s\n", p->tty ? "\r" : "",
                p->cmd, total, el, rate, p->tty ? "                    " : "");
    else
        fprintf(stderr, "%s%s: %zu/%zu points (%.1f %%), %.3g points/s, %.0f s left%s",
                p->tty ? "\r" : "", p->cmd, done, total, 100.0 * (double)done / (double)total,
                rate, left, p->tty ? "   " : "\n");
    fflush(stderr);
}

int scli_out_prepare(const char *cmd, scli_out *o)
{
    if (!o->dir || !*o->dir) {
        o->dir = ".";
        o->explicit_dir = 0;
        if (outfile_probe(o->dir) != 0) {
            cli_error(cmd, "cannot write in the current directory: %s (use -o DIR)",
                      strerror(errno));
            return CLI_EUSAGE;
        }
        return CLI_OK;
    }
    o->explicit_dir = 1;
    struct stat sb;
    if (stat(o->dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        cli_error(cmd, "-o %s: not a directory (it exists as a file)", o->dir);
        return CLI_EUSAGE;
    }
    /* before any computation: the directory exists and takes a file */
    if (outfile_mkdir(o->dir) != 0) {
        cli_error(cmd, "cannot create output directory '%s': %s", o->dir, strerror(errno));
        return CLI_EUSAGE;
    }
    if (outfile_probe(o->dir) != 0) {
        cli_error(cmd, "cannot write into output directory '%s': %s", o->dir, strerror(errno));
        return CLI_EUSAGE;
    }
    return CLI_OK;
}

void scli_remove_pictures(const scli_out *o, const char *base)
{
    static const char *const fmts[] = {"png", "svg", "pdf"};
    char path[4096];
    if (!o->explicit_dir)
        return;
    for (int k = 0; k < 3; k++) {
        int n = snprintf(path, sizeof path, "%s/%s.%s", o->dir, base, fmts[k]);
        if (n > 0 && (size_t)n < sizeof path)
            remove(path);
    }
}

int scli_out_path(const char *cmd, const scli_out *o, const char *name, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s/%s", o->dir, name);
    if (n < 0 || (size_t)n >= size) {
        cli_error(cmd, "output path too long: %s/%s", o->dir, name);
        return CLI_EUSAGE;
    }
    if (!o->explicit_dir && access(buf, F_OK) == 0) {
        cli_error(cmd, "'%s' exists; not overwriting it (write into a directory with -o DIR)",
                  buf);
        return CLI_EUSAGE; /* a refusal of the input, before any work */
    }
    return CLI_OK;
}

void scli_slug(const char *name, char *buf, size_t size)
{
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < size; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        else if (c == '+')
            c = '_';
        else if (c == ':' || c == '/')
            c = '-';
        buf[k++] = c;
    }
    buf[k] = '\0';
}

void scli_header(FILE *f, const char *cmd, const cosa_model *m, const double *par,
                 const int *swept, size_t nswept)
{
    fprintf(f, "# cosa %s %s\n# model %s\n", cosa_version(), cmd, m->name);
    for (size_t i = 0; i < m->nparam; i++) {
        int sw = 0;
        for (size_t k = 0; k < nswept; k++)
            sw |= swept[k] == (int)i;
        if (sw)
            fprintf(f, "# param %s (swept)\n", m->params[i].name);
        else
            fprintf(f, "# param %s %.17g\n", m->params[i].name, par[i]);
    }
}

int scli_write_script(const char *cmd, const char *path, const char *tpl, size_t n,
                      const char *const *keys, const char *const *values)
{
    outfile of;
    FILE *f = outfile_open(&of, path, 0);
    if (!f) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
        return CLI_EFAIL;
    }
    for (const char *p = tpl; *p;) {
        if (*p == '@') {
            size_t k = 0;
            for (; k < n; k++) {
                size_t len = strlen(keys[k]);
                if (strncmp(p + 1, keys[k], len) == 0 && p[1 + len] == '@') {
                    fputs(values[k], f);
                    p += len + 2;
                    break;
                }
            }
            if (k < n)
                continue;
        }
        fputc(*p++, f);
    }
    if (outfile_commit(&of) != 0) {
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
        return CLI_EFAIL;
    }
    return CLI_OK;
}

int scli_plot_format(const char *cmd, const char *fmt)
{
    if (strcmp(fmt, "png") == 0 || strcmp(fmt, "svg") == 0 || strcmp(fmt, "pdf") == 0)
        return CLI_OK;
    cli_error(cmd, "--plot expects png, svg or pdf, got '%s'", fmt);
    return CLI_EUSAGE;
}

/* Executable path of gnuplot: COSA_GNUPLOT from configure if it exists,
 * else "gnuplot" in PATH.  0 on success. */
static int find_gnuplot(char *buf, size_t size)
{
    /* $COSA_GNUPLOT (a path or a command name), the gnuplot configure found,
     * then gnuplot on the PATH */
    const char *env = getenv("COSA_GNUPLOT");
    const char *cands[] = {env && *env ? env : COSA_GNUPLOT, COSA_GNUPLOT, "gnuplot"};
    for (size_t c = 0; c < 3; c++) {
        const char *g = cands[c];
        if (strchr(g, '/')) {
            if (access(g, X_OK) == 0 && strlen(g) < size) {
                strcpy(buf, g);
                return 0;
            }
            continue;
        }
        const char *path = getenv("PATH");
        if (!path)
            continue;
        const char *p = path;
        while (*p) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            int n = snprintf(buf, size, "%.*s/%s", (int)len, len ? p : ".", g);
            if (n > 0 && (size_t)n < size && access(buf, X_OK) == 0)
                return 0;
            p += len + (e ? 1 : 0);
        }
    }
    return -1;
}

/* Start gnuplot on script in dir, its stderr into the temporary file *err,
 * the picture into the temporary *pic (plots/: "outfile" overrides the
 * template's OUTBASE.FMT, renamed into place when gnuplot succeeds). */
static pid_t gp_spawn(const char *gp, const char *dir, const char *script, const char *fmt,
                      FILE **err, outfile *pic)
{
    char picpath[4200], defs[4400];
    const size_t sl = strlen(script);
    const int stem = sl > 3 && strcmp(script + sl - 3, ".gp") == 0 ? (int)(sl - 3) : (int)sl;
    if ((size_t)snprintf(picpath, sizeof picpath, "%s/%.*s.%s", dir, stem, script, fmt) >=
        sizeof picpath) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (outfile_reserve(pic, picpath) != 0)
        return -1;
    const char *slash = strrchr(pic->tmp, '/');
    snprintf(defs, sizeof defs, "fmt=\"%s\"; outfile=\"%s\"", fmt, slash ? slash + 1 : pic->tmp);
    *err = tmpfile();
    if (!*err) {
        outfile_abandon(pic);
        return -1;
    }
    char *argv[] = {(char *)gp, "-e", defs, (char *)script, NULL};
    pid_t pid = outfile_spawn(dir, fileno(*err), argv);
    if (pid < 0) {
        const int e = errno;
        fclose(*err);
        *err = NULL;
        outfile_abandon(pic);
        errno = e;
    }
    return pid;
}

/* First non-empty line of gnuplot's stderr into msg. */
static void gp_message(FILE *err, char *msg, size_t size)
{
    msg[0] = '\0';
    if (!err)
        return;
    rewind(err);
    char line[512];
    while (fgets(line, sizeof line, err)) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        p[strcspn(p, "\n")] = '\0';
        if (*p) {
            snprintf(msg, size, "%s", p);
            return;
        }
    }
}

int scli_gnuplot_many(const char *cmd, const char *dir, char *const *scripts, size_t n,
                      const char *fmt, int maxpar)
{
    char gp[4096];
    size_t first = 0;
    while (first < n && !scripts[first])
        first++;
    if (first == n)
        return CLI_OK;
    /* the scripts read the data under their final names */
    int rc = outfile_publish(cmd);
    if (rc != CLI_OK)
        return rc;
    if (find_gnuplot(gp, sizeof gp) != 0) {
        cli_error(cmd, "--plot: gnuplot is not installed (apt-get install gnuplot-nox); the "
                       "data and the script '%s/%s' are written, render them later with gnuplot",
                  dir, scripts[first]);
        return CLI_EFAIL;
    }
    if (maxpar < 1)
        maxpar = 1;
    pid_t *pids = calloc(n, sizeof *pids);
    FILE **errs = calloc(n, sizeof *errs);
    outfile *pics = calloc(n, sizeof *pics);
    if (!pids || !errs || !pics) {
        free(pids);
        free(errs);
        free(pics);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    for (size_t i = 0; i < n; i++)
        pics[i].id = -1;
    int running = 0;
    size_t next = 0, done = 0, total = 0;
    for (size_t i = 0; i < n; i++)
        total += scripts[i] != NULL;
    /* the order of starting: multi-panel scripts first */
    size_t *order = malloc((n ? n : 1) * sizeof *order), no = 0;
    if (!order) {
        free(pids);
        free(errs);
        free(pics);
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            const size_t sl = scripts[i] ? strlen(scripts[i]) : 0;
            const int multi = sl >= 7 && strcmp(scripts[i] + sl - 7, "_all.gp") == 0;
            if (scripts[i] && multi == (pass == 0))
                order[no++] = i;
        }
    char msg[512];
    while (done < total) {
        while (running < maxpar && next < no && rc == CLI_OK) {
            const size_t k = order[next];
            pids[k] = gp_spawn(gp, dir, scripts[k], fmt, &errs[k], &pics[k]);
            if (pids[k] < 0) {
                cli_error(cmd, "--plot: cannot run gnuplot: %s", strerror(errno));
                rc = CLI_EFAIL;
                break;
            }
            running++;
            next++;
        }
        if (running == 0)
            break;
        int wst = 0;
        pid_t pid = waitpid(-1, &wst, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        outfile_reaped(pid);
        for (size_t i = 0; i < n; i++)
            if (pids[i] == pid) {
                running--;
                done++;
                int ok = WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
                if (ok && outfile_commit(&pics[i]) != 0) { /* an empty picture */
                    if (rc == CLI_OK)
                        cli_error(cmd, "gnuplot failed on '%s/%s': %s", dir, scripts[i],
                                  errno == ENODATA ? "it wrote an empty picture"
                                                   : strerror(errno));
                    rc = CLI_EFAIL;
                } else if (!ok && rc == CLI_OK) {
                    gp_message(errs[i], msg, sizeof msg);
                    cli_error(cmd, "gnuplot failed on '%s/%s'%s%s", dir, scripts[i],
                              *msg ? ": " : "", msg);
                    rc = CLI_EFAIL;
                }
                /* no half-written picture: a failed one is never renamed */
                outfile_abandon(&pics[i]);
                if (errs[i])
                    fclose(errs[i]);
                errs[i] = NULL;
                pids[i] = 0;
            }
    }
    for (size_t i = 0; i < n; i++)
        outfile_abandon(&pics[i]);
    free(order);
    free(pids);
    free(errs);
    free(pics);
    return rc;
}

int scli_gnuplot(const char *cmd, const char *dir, const char *script, const char *fmt)
{
    char *one[1] = {(char *)script};
    return scli_gnuplot_many(cmd, dir, one, 1, fmt, 1);
}

int scli_spec_finish(const char *cmd, cosa_sweep_spec *sp, const cosa_model *m, const double *par,
                     const double *dt, size_t ndt, const cosa_scheme *schemes, size_t ns,
                     cosa_metric metric, const char *tend_text, size_t threads, int progress,
                     scli_progress *prog)
{
    double tend = m->tend;
    int rc0 = cli_positive(cmd, "--tend", tend_text, &tend);
    if (rc0 != CLI_OK)
        return rc0;
    if (metric != COSA_METRIC_RHO && metric != COSA_METRIC_RHO_ITER)
        for (size_t i = 0; i < ndt; i++)
            if (nearbyint(tend / dt[i]) < 1) {
                cli_error(cmd, "dt %g is longer than the horizon --tend %g", dt[i], tend);
                return CLI_EUSAGE;
            }
    sp->model = m;
    sp->par = par;
    sp->dt = dt;
    sp->ndt = ndt;
    sp->schemes = schemes;
    sp->nscheme = ns;
    sp->metric = metric;
    sp->tend = tend;
    sp->threads = (int)threads;
    scli_progress_init(prog, cmd);
    if (prog->tty || progress) {
        sp->progress = scli_progress_fn;
        sp->user_data = prog;
    }
    return CLI_OK;
}

/* Resolve the axes' parameters; a note per axis with points outside the
 * parameter's own declared range (numeric rules; those points are NaN). */
static int sweep_axes(const char *cmd, const cosa_model *m, const char *const *opt,
                      const char *const *axname, cosa_sweep_axis *const *ax, size_t nax)
{
    int rc;
    for (size_t i = 0; i < nax; i++) {
        if ((rc = scli_axis_param(cmd, opt[i], m, axname[i], ax[i])) != CLI_OK)
            return rc;
        if (ax[i]->param < -1) /* relax, iterations: checked with the schemes */
            continue;
        if (ax[i]->param < 0) {
            cli_error(cmd, "%s: model '%s' has no parameter '%s' (see 'cosa models')", opt[i],
                      m->name, axname[i]);
            return CLI_EUSAGE;
        }
        size_t bad = 0;
        char msg[256] = "", one[256];
        for (size_t k = 0; k < ax[i]->n; k++)
            if (cosa_param_check(m, (size_t)ax[i]->param, NULL, cosa_sweep_axis_value(ax[i], k),
                                 one, sizeof one) != COSA_OK) {
                if (!bad++)
                    snprintf(msg, sizeof msg, "%s", one);
            }
        if (bad == ax[i]->n) {
            cli_error(cmd, "%s %s: no point of the axis is valid: %s", opt[i], axname[i], msg);
            return CLI_EUSAGE;
        }
        if (bad)
            fprintf(stderr, "cosa: %s: note: %s %s: %zu of %zu points are outside the range "
                            "(%s) and give nan\n", cmd, opt[i], axname[i], bad, ax[i]->n, msg);
    }
    return CLI_OK;
}

/* The linear system at the base parameters or, if the model rejects them,
 * at the first grid point of the true axes it accepts. */
static int sweep_system(const char *cmd, cli_model *cm, cosa_sweep_axis *const *ax, size_t nax,
                        cosa_system **sys)
{
    const cosa_model *m = cm->model;
    int rc = cli_model_linear(cm, cmd, NULL);
    if (rc != CLI_OK)
        return rc;
    cosa_status st = cosa_model_check(m, cm->par, NULL, NULL, 0);
    if (st == COSA_OK && (st = m->create(m, cm->par, sys)) == COSA_OK)
        return CLI_OK;
    if (st == COSA_ENOMEM)
        return cli_model_system(cm, cmd, sys); /* its message */
    size_t n[2] = {1, 1};
    int swept = 0;
    for (size_t i = 0; i < nax && i < 2; i++)
        if (!ax[i]->assumed && ax[i]->param >= 0) {
            n[i] = ax[i]->n;
            swept = 1;
        }
    if (!swept)
        return cli_model_system(cm, cmd, sys); /* the base error */
    double *par = malloc((m->nparam + 1) * sizeof *par);
    if (!par) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    char first[256] = "";
    cosa_status st0 = COSA_OK;
    for (size_t k = 0; k < n[0] * n[1]; k++) {
        memcpy(par, cm->par, m->nparam * sizeof *par);
        const size_t idx[2] = {k / n[1], k % n[1]};
        for (size_t i = 0; i < nax && i < 2; i++)
            if (!ax[i]->assumed && ax[i]->param >= 0)
                par[ax[i]->param] = cosa_sweep_axis_value(ax[i], idx[i]);
        char msg[256];
        st = cosa_model_check(m, par, NULL, msg, sizeof msg);
        if (st == COSA_OK && (st = m->create(m, par, sys)) != COSA_OK)
            snprintf(msg, sizeof msg, "%s", cosa_strerror(st));
        if (k == 0) {
            st0 = st;
            snprintf(first, sizeof first, "%s", msg);
        }
        if (st == COSA_OK || st == COSA_ENOMEM)
            break;
    }
    free(par);
    if (st == COSA_OK)
        return CLI_OK;
    if (st == COSA_ENOMEM) {
        cli_error(cmd, "out of memory");
        return CLI_EFAIL;
    }
    cli_error(cmd, "model '%s': no point of the sweep is valid (the first: %s)", m->name, first);
    return st0 == COSA_EPARAM || st0 == COSA_ENONFINITE || st0 == COSA_EALGLOOP ? CLI_EUSAGE
                                                                                : CLI_EFAIL;
}

int scli_sweep_setup(const char *cmd, cosa_metric metric, const char *level_text,
                     size_t nthreads, const char *plot, cli_case *cs,
                     cosa_scheme *schemes, size_t ns, double *level, size_t *threads,
                     const char *const *opt, const char *const *axname, cosa_sweep_axis *const *ax,
                     size_t nax, cosa_system **sys)
{
    int rc = cli_iter_apply(cmd, cs, schemes, ns);
    if (rc != CLI_OK)
        return rc;
    for (size_t i = 0; i < ns; i++) {
        char nm[64];
        cosa_scheme_name(&schemes[i], nm, sizeof nm);
        if (metric == COSA_METRIC_RHO_ITER && !schemes[i].implicit) {
            cli_error(cmd, "--metric rho_iter needs iterative schemes (imp:, gs-imp:), got %s", nm);
            return CLI_EUSAGE;
        }
        for (size_t a = 0; a < nax; a++) {
            const char *an = axname[a];
            if ((strcmp(an, "relax") == 0 || strcmp(an, "iterations") == 0) &&
                !schemes[i].implicit) {
                cli_error(cmd, "%s %s needs iterative schemes (imp:, gs-imp:), got %s", opt[a],
                          an, nm);
                return CLI_EUSAGE;
            }
        }
    }
    *level = metric == COSA_METRIC_RHO || metric == COSA_METRIC_RHO_ITER ? 1.0
             : cosa_metric_is_error(metric)         ? 0.01
             : metric == COSA_METRIC_E_RATIO        ? 1.1
             : metric == COSA_METRIC_MU_MEASURED    ? 0.5
                                                    : 0.0;
    if (cosa_metric_is_energy(metric)) {
        for (size_t i = 0; i < ns; i++)
            if (schemes[i].exec != COSA_JACOBI || schemes[i].corr != COSA_CORR_NONE ||
                schemes[i].implicit) {
                char nm[64];
                cosa_scheme_name(&schemes[i], nm, sizeof nm);
                cli_error(cmd, "--metric %s: the energy paper's coupling is plain Jacobi (no gs:, imp:, "
                               "no +ocorr/+ecorr/+mbcorr), got %s", cosa_metric_name(metric), nm);
                return CLI_EUSAGE;
            }
    }
    /* the energy metrics take any level (dE and varsigma have a sign) */
    const int positive = !cosa_metric_is_energy(metric);
    if (level_text && (scli_number(level_text, level) != 0 || (positive && !(*level > 0.0)))) {
        cli_error(cmd, "--level must be a %s number, got '%s'", positive ? "positive" : "finite",
                  level_text);
        return CLI_EUSAGE;
    }
    *threads = nthreads;
#ifdef _OPENMP
    /* the default (all cores, or OMP_NUM_THREADS) under the same limit */
    if (!nthreads && omp_get_max_threads() > CLI_THREADS_MAX)
        *threads = CLI_THREADS_MAX;
    /* and never more threads than processors: the points are independent
     * and CPU-bound, so more only cost a workspace and a stack each
     * (--threads 4096 on 2 processors: 1.8 s instead of 0.2 s for a 60 x 60
     * map); the results are bitwise the same for any count */
    const int procs = omp_get_num_procs();
    if (procs > 0 && *threads > (size_t)procs)
        *threads = (size_t)procs;
#endif
    if (plot && (rc = scli_plot_format(cmd, plot)) != CLI_OK)
        return rc;
    /* the system, checked against a Gauss-Seidel scheme if any */
    size_t pick = 0;
    for (size_t i = 0; i < ns; i++)
        if (schemes[i].exec == COSA_GAUSS_SEIDEL) {
            pick = i;
            break;
        }
    if ((rc = cli_model_resolve(&cs->mod, cmd)) != CLI_OK ||
        (rc = sweep_axes(cmd, cs->mod.model, opt, axname, ax, nax)) != CLI_OK ||
        (rc = sweep_system(cmd, &cs->mod, ax, nax, sys)) != CLI_OK ||
        (rc = cli_case_sequence(cmd, cs, &schemes[pick], cosa_system_nsub(*sys), *sys)) != CLI_OK)
        return rc;
    const cosa_model *m = cs->mod.model;
    if (cosa_metric_is_energy(metric) && (!m->energy || !m->energy_port)) {
        cli_error(cmd, "--metric %s: model '%s' declares no mechanical energy and power port "
                       "(models with them: twomass-fd, multi-fd)", cosa_metric_name(metric),
                  m->name);
        return CLI_EUSAGE;
    }
    for (size_t i = 0; i < ns; i++)
        if (schemes[i].exec == COSA_GAUSS_SEIDEL)
            schemes[i].seq = cs->seq;
    return CLI_OK;
}

void scli_adaptive(int adaptive, size_t coarse, double margin, cosa_metric metric, double level,
                   cosa_adaptive_opts *o, char *desc, size_t size)
{
    const int errors = cosa_metric_is_error(metric);
    *o = (cosa_adaptive_opts){level, COSA_ADAPTIVE_COARSE, COSA_ADAPTIVE_MARGIN, errors};
    if (!adaptive)
        return;
    if (coarse)
        o->coarse = coarse;
    if (margin == margin)
        o->margin = margin;
    char b[32];
    snprintf(desc, size, "coarse grid every %zu points, refined where the corners straddle the "
             "level or one lies within %s x their spread of it%s, contours traced", o->coarse,
             cosa_number_text(b, sizeof b, o->margin), errors ? " (log10 scale)" : "");
}
