/* cmd_convert.c -- `cosa convert`: map data files from text to binary and
 * back (formats: map_data.h).  Either direction reproduces the file the
 * other format of `cosa map` writes, byte for byte. */
#include "cli.h"
#include "table_writer.h"
#include "map_data.h"
#include "outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "Usage: cosa convert IN.dat OUT.dat\n\n"
    "Convert a data file of 'cosa map' between its two formats (--format):\n"
    "  text -> bin   IN.dat holds header and records as text; writes OUT.dat (the\n"
    "                header and a '# binary OUT.bin: ...' line) and OUT.bin (the\n"
    "                records as float64 in this machine's byte order)\n"
    "  bin -> text   IN.dat is the header of a binary file (its '# binary' line\n"
    "                names the records, found next to IN.dat); writes OUT.dat as\n"
    "                text\n"
    "The direction follows from IN.dat.  The result equals what 'cosa map' writes\n"
    "in the other format, byte for byte (the gnuplot scripts of a map refer to\n"
    "the format it was run with).  OUT must end in .dat and differ from IN.\n"
    "stdout: 'file PATH' per file written, then 'records N columns C blocks B'.\n\n";

static const opt_row rows[] = {
    {.kind = OPTK_TEXT, .help = "Options:\n"},
    {.kind = OPTK_INCLUDE, .sub = cli_help_rows},
    {0}};

/* Line reader (getline's buffer). */
struct lines {
    FILE *f;
    char *buf;
    size_t cap;
};

static const char *next_line(struct lines *l)
{
    return getline(&l->buf, &l->cap, l->f) > 0 ? l->buf : NULL;
}

/* path with its ".dat" replaced by ext (1 if path does not end in .dat). */
static int sibling(const char *path, const char *ext, char *buf, size_t size)
{
    const size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 4, ".dat") != 0 || n - 4 + strlen(ext) + 1 > size)
        return 1;
    memcpy(buf, path, n - 4);
    strcpy(buf + n - 4, ext);
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Parse a text record: 1 and its columns in v (at most 8), 0 for a blank
 * line, -1 for anything else. */
static int parse_record(const char *line, double *v, size_t *ncol)
{
    const char *p = line;
    size_t n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\n' || *p == '\0')
        return 0;
    while (*p && *p != '\n') {
        char *end;
        if (n == 8)
            return -1;
        errno = 0;
        v[n++] = strtod(p, &end);
        if (end == p || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
            return -1;
        p = end;
        while (*p == ' ' || *p == '\t')
            p++;
    }
    *ncol = n;
    return 1;
}

struct conv {
    const char *cmd, *in, *out;
    char out_bin[4096];
    outfile od, ob; /* the new files under temporary names (outfile.h) */
    FILE *dat, *bin;
};

static void conv_abort(struct conv *c)
{
    outfile_abandon(&c->od);
    outfile_abandon(&c->ob);
    c->dat = c->bin = NULL;
}

/* Flush and close the temporary files; they are renamed into place when
 * the command succeeds. */
static int conv_commit(struct conv *c)
{
    const char *culprit = c->out_bin;
    int bad = c->bin && outfile_commit(&c->ob) != 0;
    if (!bad) {
        culprit = c->out;
        bad = outfile_commit(&c->od) != 0;
    }
    c->dat = c->bin = NULL;
    if (bad) {
        cli_error(c->cmd, "cannot write '%s': %s", culprit, strerror(errno));
        conv_abort(c);
        return CLI_EFAIL;
    }
    return CLI_OK;
}

/* The report on stdout: the files written (out, and bin when given), then
 * "records N columns C blocks B". */
static int conv_report(const struct conv *c, const char *bin, size_t nrec, size_t ncol,
                       size_t nblock)
{
    tw say;
    if (tw_begin(&say, stdout, TW_TEXT, TW_REPORT, c->cmd, NULL, NULL) != 0) {
        cli_error(c->cmd, "out of memory");
        return CLI_EFAIL;
    }
    tw_field(&say, "file", "%s", c->out);
    if (bin)
        tw_field(&say, "file", "%s", bin);
    tw_field(&say, "records", "%zu columns %zu blocks %zu", nrec, ncol, nblock);
    return tw_finish(&say, c->cmd, CLI_OK); /* stdout: its writes are checked at the exit */
}

/* text -> bin: the header lines so far are in hdr (nh lines); l reads on. */
static int to_bin(struct conv *c, struct lines *l, char **hdr, size_t nh, const char *first)
{
    if (sibling(c->out, ".bin", c->out_bin, sizeof c->out_bin)) {
        cli_error(c->cmd, "'%s': the output must end in .dat", c->out);
        return CLI_EUSAGE;
    }
    c->dat = outfile_open(&c->od, c->out, 0);
    c->bin = c->dat ? outfile_open(&c->ob, c->out_bin, 1) : NULL;
    if (!c->dat || !c->bin) {
        cli_error(c->cmd, "cannot write '%s': %s", c->dat ? c->out_bin : c->out, strerror(errno));
        conv_abort(c);
        return CLI_EUSAGE;
    }
    /* the records stream into the binary file; the blank lines before each
     * are checked against the shape found at the end */
    size_t nrec = 0, ncol = 0, blanks = 0, cap = 0, lineno = nh;
    unsigned char *sep = NULL;
    const char *line = first;
    double v[8];
    int rc = CLI_OK;
    for (; line; line = next_line(l)) {
        lineno++;
        size_t n = 0;
        const int r = parse_record(line, v, &n);
        if (r < 0 || (r > 0 && ncol && n != ncol)) {
            cli_error(c->cmd, "%s:%zu: not a record of %zu numbers", c->in, lineno,
                      ncol ? ncol : n);
            rc = CLI_EUSAGE;
            break;
        }
        if (r == 0) {
            blanks++;
            continue;
        }
        ncol = n;
        if (nrec == cap) {
            cap = cap ? 2 * cap : 4096;
            unsigned char *s2 = realloc(sep, cap);
            if (!s2) {
                cli_error(c->cmd, "out of memory");
                rc = CLI_EFAIL;
                break;
            }
            sep = s2;
        }
        sep[nrec++] = (unsigned char)(blanks > 2 ? 3 : blanks);
        blanks = 0;
        if (fwrite(v, sizeof(double), n, c->bin) != n) {
            cli_error(c->cmd, "cannot write '%s': %s", c->out_bin, strerror(errno));
            rc = CLI_EFAIL;
            break;
        }
    }
    md_shape s = {ncol, 0, 0, 0};
    if (rc == CLI_OK && nrec == 0) {
        cli_error(c->cmd, "%s: no records", c->in);
        rc = CLI_EUSAGE;
    }
    if (rc == CLI_OK) {
        size_t ninner = nrec, per_block = nrec;
        for (size_t k = 1; k < nrec; k++)
            if (sep[k]) {
                ninner = k;
                break;
            }
        for (size_t k = 1; k < nrec; k++)
            if (sep[k] >= 2) {
                per_block = k;
                break;
            }
        s.ninner = ninner;
        s.nx = per_block / ninner;
        s.nblock = nrec / per_block;
        int ok = per_block % ninner == 0 && nrec % per_block == 0;
        for (size_t k = 0; ok && k < nrec; k++) {
            const unsigned want = k == 0 ? 0 : k % per_block == 0 ? 2 : k % ninner == 0 ? 1 : 0;
            ok = sep[k] == want;
        }
        if (!ok) {
            cli_error(c->cmd, "%s: the blank lines do not form a grid (blocks of x values of "
                      "equal length)", c->in);
            rc = CLI_EUSAGE;
        }
    }
    free(sep);
    if (rc != CLI_OK) {
        conv_abort(c);
        return rc;
    }
    for (size_t i = 0; i < nh; i++)
        fputs(hdr[i], c->dat);
    md_binary_line(c->dat, base_name(c->out_bin), &s);
    if ((rc = conv_commit(c)) != CLI_OK)
        return rc;
    return conv_report(c, c->out_bin, nrec, s.ncol, s.nblock);
}

/* bin -> text: hdr (nh lines) without the binary line, which named binname
 * and the shape s. */
static int to_text(struct conv *c, char **hdr, size_t nh, const char *binname, const md_shape *s)
{
    /* the records: next to the input header */
    char binpath[4096];
    const char *slash = strrchr(c->in, '/');
    if (strchr(binname, '/') ||
        (size_t)snprintf(binpath, sizeof binpath, "%.*s%s", slash ? (int)(slash - c->in + 1) : 0,
                         c->in, binname) >= sizeof binpath) {
        cli_error(c->cmd, "%s: bad record file name '%s'", c->in, binname);
        return CLI_EUSAGE;
    }
    const size_t nrec = s->nblock * s->nx * s->ninner;
    if (s->ncol == 0 || s->ncol > 8 || nrec == 0 || s->nx == 0 || s->ninner == 0 ||
        nrec / s->nblock / s->nx != s->ninner) {
        cli_error(c->cmd, "%s: bad binary shape", c->in);
        return CLI_EUSAGE;
    }
    FILE *b = fopen(binpath, "rb");
    if (!b) {
        cli_error(c->cmd, "cannot read '%s': %s", binpath, strerror(errno));
        return CLI_EUSAGE;
    }
    struct stat st;
    if (fstat(fileno(b), &st) != 0 || (size_t)st.st_size != nrec * s->ncol * sizeof(double)) {
        cli_error(c->cmd, "%s: %lld bytes, the header says %zu records of %zu float64", binpath,
                  (long long)st.st_size, nrec, s->ncol);
        fclose(b);
        return CLI_EUSAGE;
    }
    if (same_file(binpath, c->out)) {
        cli_error(c->cmd, "'%s' would overwrite the records it reads", c->out);
        fclose(b);
        return CLI_EUSAGE;
    }
    c->dat = outfile_open(&c->od, c->out, 0);
    if (!c->dat) {
        cli_error(c->cmd, "cannot write '%s': %s", c->out, strerror(errno));
        fclose(b);
        return CLI_EUSAGE;
    }
    setvbuf(c->dat, NULL, _IOFBF, 1 << 16);
    for (size_t i = 0; i < nh; i++)
        fputs(hdr[i], c->dat);
    double v[8];
    tw w; /* the records in the text form of the writer (gnuplot's blank lines) */
    tw_begin(&w, c->dat, TW_TEXT, TW_DATA, c->cmd, NULL, NULL);
    tw_shape(&w, s);
    for (size_t k = 0; k < nrec; k++) {
        if (fread(v, sizeof(double), s->ncol, b) != s->ncol) {
            cli_error(c->cmd, "cannot read '%s'", binpath);
            fclose(b);
            tw_abandon(&w);
            conv_abort(c);
            return CLI_EFAIL;
        }
        tw_record(&w, v, s->ncol);
    }
    fclose(b);
    (void)tw_end(&w); /* a failed write: conv_commit names it */
    int rc = conv_commit(c);
    if (rc == CLI_OK)
        rc = conv_report(c, NULL, nrec, s->ncol, s->nblock);
    return rc;
}

/* The header of IN (its leading '#' lines, without a '# binary' line) into
 * *hdr (*nh strdup'ed lines); *kind 1 when a '# binary' line names the
 * records (binname, shape s); *line: the first line after the header.
 * CLI_OK or an exit code after one line. */
static int read_header(const char *cmd, const char *in, struct lines *l, char ***hdr, size_t *nh,
                       char *binname, size_t binsize, int *kind, md_shape *s, const char **line)
{
    size_t cap = 0;
    while ((*line = next_line(l)) && (*line)[0] == '#') {
        if (*nh == 0 && (strncmp(*line, "# cosa ", 7) != 0 || !strstr(*line, " map\n"))) {
            cli_error(cmd, "%s: not a data file of 'cosa map' (its first line must be "
                      "'# cosa VERSION map')", in);
            return CLI_EUSAGE;
        }
        const int b = md_parse_binary_line(*line, binname, binsize, s);
        if (b < 0) {
            cli_error(cmd, "%s: the records are in the other byte order", in);
            return CLI_EUSAGE;
        }
        if (b > 0) {
            *kind = 1;
            continue;
        }
        if (*nh == cap) {
            cap = cap ? 2 * cap : 64;
            char **h2 = realloc(*hdr, cap * sizeof **hdr);
            if (!h2) {
                cli_error(cmd, "out of memory");
                return CLI_EFAIL;
            }
            *hdr = h2;
        }
        if (!((*hdr)[*nh] = strdup(*line))) {
            cli_error(cmd, "out of memory");
            return CLI_EFAIL;
        }
        (*nh)++;
    }
    return CLI_OK;
}

int cmd_convert(int argc, char **argv)
{
    const char *cmd = "convert";
    int first = 0;
    const int prc = opt_parse(cmd, rows, NULL, argc, argv, &first);
    if (prc == OPT_HELP_ASKED) {
        fputs(usage, stdout);
        opt_help_grouped(stdout, rows, 0);
        return CLI_OK;
    }
    if (prc != CLI_OK)
        return prc == OPT_LISTED ? CLI_OK : prc;
    if (argc - first != 2) {
        cli_error(cmd, "%s (see 'cosa convert --help')",
                  argc - first < 2 ? "needs IN.dat and OUT.dat" : "too many arguments");
        return CLI_EUSAGE;
    }
    struct conv c = {0};
    c.od.id = c.ob.id = -1;
    c.cmd = cmd;
    c.in = argv[first];
    c.out = argv[first + 1];
    const size_t nout = strlen(c.out);
    if (nout < 5 || strcmp(c.out + nout - 4, ".dat") != 0) {
        cli_error(cmd, "'%s': the output must end in .dat", c.out);
        return CLI_EUSAGE;
    }
    if (strcmp(c.in, c.out) == 0 || same_file(c.in, c.out)) {
        cli_error(cmd, "'%s': the output must differ from the input", c.out);
        return CLI_EUSAGE;
    }
    struct lines l = {fopen(c.in, "r"), NULL, 0};
    if (!l.f) {
        cli_error(cmd, "cannot read '%s': %s", c.in, strerror(errno));
        return CLI_EUSAGE;
    }
    /* the header: the leading '#' lines; the first says what wrote it */
    char **hdr = NULL, binname[4096] = "";
    size_t nh = 0;
    int kind = 0;
    md_shape s;
    const char *line = NULL;
    int rc = read_header(cmd, c.in, &l, &hdr, &nh, binname, sizeof binname, &kind, &s, &line);
    if (rc == CLI_OK && nh == 0) {
        cli_error(cmd, "%s: not a data file of 'cosa map' (no header)", c.in);
        rc = CLI_EUSAGE;
    }
    if (rc == CLI_OK && kind == 1 && line) {
        cli_error(cmd, "%s: a binary header followed by text records", c.in);
        rc = CLI_EUSAGE;
    }
    if (rc == CLI_OK)
        rc = kind == 1 ? to_text(&c, hdr, nh, binname, &s) : to_bin(&c, &l, hdr, nh, line);
    for (size_t i = 0; i < nh; i++)
        free(hdr[i]);
    free(hdr);
    free(l.buf);
    fclose(l.f);
    return rc;
}
