/* number.c -- numbers as text: the shortest rendering that reads back
 * bit for bit (cosa_number_format). */
#include "cosa/core.h"

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
