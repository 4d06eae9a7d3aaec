/* cli_text.c -- the text conventions of the command line: the one-line
 * error, the one number parser (and the shortest form that reads back),
 * positive numbers and thread counts. */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("cosa: ", stderr);
    if (cmd)
        fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* decimal notation only: strtod would also take " 1", "0x10" (= 16),
 * "infinity" and "nan" */
static int parse_decimal(const char *text, double *out)
{
    if (!text || !*text || strspn(text, "0123456789+-.eE") != strlen(text))
        return CLI_NUM_SYNTAX;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0')
        return CLI_NUM_SYNTAX;
    /* ERANGE: beyond DBL_MAX (+-HUGE_VAL), or below the smallest normal
     * double (0 or a subnormal that lost digits) */
    if (errno == ERANGE || !isfinite(v))
        return fabs(v) >= 1.0 || !isfinite(v) ? CLI_NUM_OVERFLOW : CLI_NUM_UNDERFLOW;
    *out = v;
    return CLI_NUM_OK;
}

int cli_parse_double(const char *text, double *out)
{
    if (text && strncmp(text, "10^", 3) == 0) {
        double e, v;
        int rc = parse_decimal(text + 3, &e);
        if (rc == CLI_NUM_OVERFLOW) /* 10^(+-huge) */
            return text[3] == '-' ? CLI_NUM_UNDERFLOW : CLI_NUM_OVERFLOW;
        if (rc != CLI_NUM_OK)
            return CLI_NUM_SYNTAX;
        v = pow(10.0, e);
        if (!isfinite(v))
            return CLI_NUM_OVERFLOW;
        if (fabs(v) < DBL_MIN)
            return CLI_NUM_UNDERFLOW;
        *out = v;
        return CLI_NUM_OK;
    }
    return parse_decimal(text, out);
}

const char *cli_number_why(int code)
{
    switch (code) {
    case CLI_NUM_OVERFLOW: return "overflows (beyond 1.8e308, the largest double)";
    case CLI_NUM_UNDERFLOW: return "underflows to 0 (below 2.2e-308, the smallest normal double)";
    default: return "not a finite number";
    }
}

int cli_parse_size(const char *text, size_t *out)
{
    if (!text || !*text || *text == '-')
        return -1;
    if (strspn(text, "0123456789") == strlen(text)) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (end == text || *end != '\0' || errno == ERANGE || v == 0 || v > SIZE_MAX)
            return -1;
        *out = (size_t)v;
        return 0;
    }
    /* "1e6", "10^6": exact integer values only, up to 2^53 (beyond it a
     * double no longer holds every integer) */
    double v;
    if (cli_parse_double(text, &v) != CLI_NUM_OK || v != floor(v) || !(v >= 1.0) ||
        v > 9007199254740992.0 || v > (double)SIZE_MAX)
        return -1;
    *out = (size_t)v;
    return 0;
}

size_t cli_points_cap(const cli_case *cs)
{
    return cs && cs->max_points ? cs->max_points : CLI_POINTS_MAX;
}

int cli_points_check(const char *cmd, size_t cap, const size_t *n, size_t k, const char *what)
{
    size_t total = 1;
    int over = 0;
    for (size_t i = 0; i < k; i++)
        over |= __builtin_mul_overflow(total, n[i], &total);
    if (!over && total <= cap)
        return CLI_OK;
    char sizes[160] = "";
    size_t len = 0;
    for (size_t i = 0; i < k && len < sizeof sizes; i++) {
        const int w = snprintf(sizes + len, sizeof sizes - len, "%s%zu", i ? " x " : "", n[i]);
        len += w > 0 ? (size_t)w : 0;
    }
    if (over)
        cli_error(cmd, "%s: %s points overflow a size; at most %zu (--max-points N)", what, sizes,
                  cap);
    else if (k == 1)
        cli_error(cmd, "%s: %zu points, more than the cap %zu (raise it with --max-points N)",
                  what, total, cap);
    else
        cli_error(cmd, "%s: %s = %zu points, more than the cap %zu (raise it with --max-points N)",
                  what, sizes, total, cap);
    return CLI_EUSAGE;
}

int cli_positive(const char *cmd, const char *opt, const char *text, double *v)
{
    if (!text)
        return CLI_OK;
    double x;
    const int rc = cli_parse_double(text, &x);
    if (rc == CLI_NUM_OK && x > 0.0) {
        *v = x;
        return CLI_OK;
    }
    if (rc == CLI_NUM_OVERFLOW || rc == CLI_NUM_UNDERFLOW)
        cli_error(cmd, "%s must be a positive finite number: '%s' %s", opt, text,
                  cli_number_why(rc));
    else
        cli_error(cmd, "%s must be a positive finite number, got '%s'", opt, text);
    return CLI_EUSAGE;
}

int cli_threads(const char *cmd, const char *text, size_t *n)
{
    size_t v;
    if (cli_parse_size(text, &v) != 0 || v > CLI_THREADS_MAX) {
        cli_error(cmd, "--threads must be an integer in 1..%d, got '%s'", CLI_THREADS_MAX, text);
        return CLI_EUSAGE;
    }
    *n = v;
    return CLI_OK;
}
