/* map_data.c -- the text and binary formats of map data files (map_data.h). */
#include "map_data.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The host's byte order of a double: "little" or "big". */
static const char *host_order(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b ? "little" : "big";
}

void md_num(char *buf, size_t size, double v)
{
    if (isnan(v))
        snprintf(buf, size, "nan");
    else if (isinf(v))
        snprintf(buf, size, v > 0 ? "inf" : "-inf");
    else
        snprintf(buf, size, "%.17g", v);
}

void md_text_record(FILE *f, const double *v, size_t ncol)
{
    char b[32];
    for (size_t c = 0; c < ncol; c++) {
        md_num(b, sizeof b, v[c]);
        if (c)
            fputc(' ', f);
        fputs(b, f);
    }
    fputc('\n', f);
}

void md_text_separator(FILE *f, const md_shape *s, size_t k)
{
    const size_t per_block = s->nx * s->ninner;
    if (k == 0 || per_block == 0 || s->ninner == 0)
        return;
    if (k % per_block == 0)
        fputs("\n\n", f);
    else if (k % s->ninner == 0)
        fputc('\n', f);
}

void md_binary_line(FILE *f, const char *binname, const md_shape *s)
{
    fprintf(f, "# binary %s: float64 %s-endian, %zu columns, %zu blocks of %zu x %zu records\n",
            binname, host_order(), s->ncol, s->nblock, s->nx, s->ninner);
}

int md_parse_binary_line(const char *line, char *binname, size_t size, md_shape *s)
{
    static const char tag[] = "# binary ";
    if (strncmp(line, tag, sizeof tag - 1) != 0)
        return 0;
    const char *p = line + sizeof tag - 1, *colon = strstr(p, ": float64 ");
    if (!colon || (size_t)(colon - p) >= size || colon == p)
        return 0;
    char order[8];
    md_shape t;
    int used = 0;
    if (sscanf(colon, ": float64 %7[a-z]-endian, %zu columns, %zu blocks of %zu x %zu records%n",
               order, &t.ncol, &t.nblock, &t.nx, &t.ninner, &used) != 5 ||
        (colon[used] != '\n' && colon[used] != '\0'))
        return 0;
    if (strcmp(order, host_order()) != 0)
        return -1;
    memcpy(binname, p, (size_t)(colon - p));
    binname[colon - p] = '\0';
    *s = t;
    return 1;
}

void md_gnuplot_spec(char *buf, size_t size, const md_shape *s)
{
    size_t n = (size_t)snprintf(buf, size, "binary record=");
    for (size_t b = 0; b < s->nblock && n < size; b++)
        n += (size_t)snprintf(buf + n, size - n, "%s(%zu,%zu)", b ? ":" : "", s->ninner, s->nx);
    if (n < size)
        snprintf(buf + n, size - n, " format=\"%%%zufloat64\"", s->ncol);
}
