/* fmu_archive.c -- unzip an FMU (or an SSP, README "SSP import") into a
 * private temporary directory (libzip), refusing entries that would land
 * outside it, and remove it again. */
#define _XOPEN_SOURCE 700
#include "td/fmu_impl.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void fmu_archive_remove(const char *dir)
{
    if (dir && dir[0])
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* 1 if an entry name stays inside the directory: relative, no ".."
 * component, no backslash (a Windows separator that could hide one). */
static int safe_name(const char *name)
{
    if (!name[0] || name[0] == '/' || strchr(name, '\\'))
        return 0;
    for (const char *p = name; *p;) {
        const char *e = strchr(p, '/');
        const size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n + (e != NULL);
    }
    return 1;
}

/* mkdir -p for the directories of path below root (path starts with root). */
static int make_parents(char *path, size_t rootlen)
{
    for (char *p = path + rootlen + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        const int r = mkdir(path, 0700);
        const int e = errno;
        *p = '/';
        if (r != 0 && e != EEXIST)
            return -1;
    }
    return 0;
}

/* The cap on the bytes one archive unpacks to (issue 32: a small FMU may
 * hold a huge entry): 1 GiB, or COSA_FMU_UNPACK_MAX from the environment
 * (bytes, e.g. 4e9); -1 for a value that is not a positive number. */
#define UNPACK_CAP_DEFAULT 1073741824.0
static double unpack_cap(void)
{
    const char *s = getenv("COSA_FMU_UNPACK_MAX");
    if (!s || !s[0])
        return UNPACK_CAP_DEFAULT;
    char *end;
    const double v = strtod(s, &end);
    return *end == '\0' && v > 0.0 && v < 1e18 ? v : -1.0;
}

/* Whether the entries' declared sizes stay within the cap: 0, or -1 with
 * the message. */
static int check_unpacked(zip_t *z, const char *kind, double cap, char *err, size_t errsize)
{
    if (cap < 0.0) {
        snprintf(err, errsize, "COSA_FMU_UNPACK_MAX='%.40s' is not a positive number of bytes",
                 getenv("COSA_FMU_UNPACK_MAX"));
        return -1;
    }
    double total = 0.0;
    const zip_int64_t n = zip_get_num_entries(z, 0);
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t zs;
        if (zip_stat_index(z, (zip_uint64_t)i, 0, &zs) == 0 && (zs.valid & ZIP_STAT_SIZE))
            total += (double)zs.size;
    }
    if (total <= cap)
        return 0;
    snprintf(err, errsize, "not unpacked: the %s's entries hold %.0f bytes unpacked, more than "
             "the cap of %.0f bytes (1 GiB by default; raise it with COSA_FMU_UNPACK_MAX=BYTES)",
             kind, total, cap);
    return -1;
}

/* kind ("FMU", "SSP") names the archive in messages. */
static int extract(const char *archive, const char *kind, char *dir, size_t dirsize, char *err,
                   size_t errsize)
{
    dir[0] = '\0';
    int zerr = 0;
    zip_t *z = zip_open(archive, ZIP_RDONLY, &zerr);
    if (!z) {
        if (zerr == ZIP_ER_NOENT || zerr == ZIP_ER_OPEN || zerr == ZIP_ER_READ) {
            snprintf(err, errsize, "cannot read the file: %s", strerror(errno));
            return -2;
        }
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        snprintf(err, errsize, "not an %s: not a zip archive (%s)", kind,
                 zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return -1;
    }
    const double cap = unpack_cap();
    if (check_unpacked(z, kind, cap, err, errsize) != 0) {
        zip_discard(z);
        return -1;
    }
    double written = 0.0; /* the cap again on what is written (sizes may lie) */
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !tmp[0])
        tmp = "/tmp";
    /* the pid in the name: cosa's signal handler removes its own
     * (analysis/tmp_cleanup.c) */
    if ((size_t)snprintf(dir, dirsize, "%s/cosa-fmu-%ld-XXXXXX", tmp, (long)getpid()) >=
            dirsize ||
        !mkdtemp(dir)) {
        snprintf(err, errsize, "cannot create a temporary directory in %s: %s", tmp,
                 strerror(errno));
        dir[0] = '\0';
        zip_discard(z);
        return -2;
    }
    const size_t rootlen = strlen(dir);
    const zip_int64_t n = zip_get_num_entries(z, 0);
    char *path = malloc(rootlen + 4096 + 2);
    char *buf = malloc(1 << 16);
    int rc = path && buf ? 0 : -3;
    if (rc)
        snprintf(err, errsize, "out of memory");
    for (zip_int64_t i = 0; rc == 0 && i < n; i++) {
        const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
        if (!name || !safe_name(name) || strlen(name) > 4096) {
            snprintf(err, errsize, "not an %s: archive entry '%.200s' would be written outside "
                     "the %s's directory", kind, name ? name : "?", kind);
            rc = -1;
            break;
        }
        snprintf(path, rootlen + 4096 + 2, "%s/%s", dir, name);
        if (make_parents(path, rootlen) != 0) {
            snprintf(err, errsize, "cannot unzip '%.200s': %s", name, strerror(errno));
            rc = -2;
            break;
        }
        const size_t len = strlen(name);
        if (name[len - 1] == '/') { /* a directory entry */
            if (mkdir(path, 0700) != 0 && errno != EEXIST) {
                snprintf(err, errsize, "cannot unzip '%.200s': %s", name, strerror(errno));
                rc = -2;
            }
            continue;
        }
        zip_file_t *zf = zip_fopen_index(z, (zip_uint64_t)i, 0);
        /* "wb": an archive may list an entry twice (the last one wins, as
         * unzip's); the directory is new and private, so nothing else is there */
        FILE *f = zf ? fopen(path, "wb") : NULL;
        if (!zf || !f) {
            if (zf)
                snprintf(err, errsize, "cannot unzip '%.200s': %s", name, strerror(errno));
            else
                snprintf(err, errsize, "not an %s: corrupt zip entry '%.200s'", kind, name);
            rc = zf ? -2 : -1;
        }
        zip_int64_t got;
        while (rc == 0 && (got = zip_fread(zf, buf, 1 << 16)) > 0) {
            if ((written += (double)got) > cap) {
                snprintf(err, errsize, "not unpacked: the %s unpacks to more than the cap of "
                         "%.0f bytes (raise it with COSA_FMU_UNPACK_MAX=BYTES)", kind, cap);
                rc = -1;
            } else if (fwrite(buf, 1, (size_t)got, f) != (size_t)got) {
                snprintf(err, errsize, "cannot unzip '%.200s': %s", name, strerror(errno));
                rc = -2;
            }
        }
        if (rc == 0 && got < 0) {
            snprintf(err, errsize, "not an %s: corrupt zip entry '%.200s'", kind, name);
            rc = -1;
        }
        if (f && fclose(f) != 0 && rc == 0) {
            snprintf(err, errsize, "cannot unzip '%.200s': %s", name, strerror(errno));
            rc = -2;
        }
        if (zf)
            zip_fclose(zf);
    }
    free(path);
    free(buf);
    zip_discard(z);
    if (rc != 0) {
        fmu_archive_remove(dir);
        dir[0] = '\0';
    }
    return rc;
}

int fmu_archive_extract(const char *archive, char *dir, size_t dirsize, char *err,
                        size_t errsize)
{
    return extract(archive, "FMU", dir, dirsize, err, errsize);
}

cosa_status cosa_archive_extract(const char *archive, const char *kind, char *dir,
                                 size_t dirsize, char *err, size_t errsize)
{
    if (!archive || !kind || !dir || dirsize < 64 || !err || !errsize)
        return COSA_EINVAL;
    const int rc = extract(archive, kind, dir, dirsize, err, errsize);
    return rc == 0 ? COSA_OK : rc == -1 ? COSA_ESYNTAX : rc == -3 ? COSA_ENOMEM : COSA_EIO;
}

void cosa_archive_remove(const char *dir) { fmu_archive_remove(dir); }
