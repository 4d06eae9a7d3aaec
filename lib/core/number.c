/* number.c -- numbers as text: the shortest rendering that reads back
 * bit for bit (cosa_number_format). */
#include "cosa/core.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "1e+06" -> "1e6", "2.5e-07" -> "2.5e-7". */
static void tidy_exponent(char *s)
{
    char *e = strchr(s, 'e');
    if (!e)
        return;
    char *d = e + 1, *src = e + 1;
    if (*src == '+')
        src++;
    else if (*src == '-')
        *d++ = *src++;
    while (*src == '0' && src[1])
        src++;
    memmove(d, src, strlen(src) + 1);
}

/* Among the %.{p}g renderings that read back as x, the shortest; an
 * exponent counts two extra characters, so 1000 prints as "1000" and 1e6
 * as "1e6". */
char *cosa_number_format(char *best, double x)
{
    char buf[COSA_NUMBER_MAX];
    best[0] = '\0';
    size_t best_score = SIZE_MAX;
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, x);
        double y = strtod(buf, NULL);
        if (memcmp(&x, &y, sizeof x) != 0)
            continue;
        tidy_exponent(buf);
        size_t score = strlen(buf) + (strchr(buf, 'e') ? 2 : 0);
        if (score < best_score) {
            best_score = score;
            memcpy(best, buf, sizeof buf);
        }
    }
    if (!best[0]) /* not reached for finite x: %.17g always reads back */
        snprintf(best, COSA_NUMBER_MAX, "%.17g", x);
    return best;
}

/* Numbers in messages: integers in full (100000, not 1e+05), else the
 * first %.{p}g that reads back as v. */
const char *cosa_number_text(char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "nan");
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? "inf" : "-inf");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, size, "%.0f", v);
    else
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, size, "%.*g", prec, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    return buf;
}

char *cosa_set_text(char *buf, size_t size, const char *const *name, const double *value,
                    size_t n)
{
    char b[32];
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s = %s", i ? ", " : " (with ",
                                name[i], cosa_number_text(b, sizeof b, value[i]));
    if (n && len < size)
        snprintf(buf + len, size - len, ")");
    return buf;
}
