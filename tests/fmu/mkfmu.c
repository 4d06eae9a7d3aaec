/* mkfmu.c -- build an FMU (a zip archive) for the tests:
 *   mkfmu OUT.fmu NAME=PATH... [NAME=@TEXT]...
 * adds file PATH under the archive name NAME (or the literal TEXT after
 * '@').  Names are taken as given, so the tests can build archives that an
 * importer must refuse (e.g. "../escape.txt"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: mkfmu OUT.fmu NAME=PATH|NAME=@TEXT...\n");
        return 2;
    }
    int err = 0;
    remove(argv[1]);
    zip_t *z = zip_open(argv[1], ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) {
        fprintf(stderr, "mkfmu: cannot create %s (libzip error %d)\n", argv[1], err);
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "mkfmu: '%s' is not NAME=PATH\n", argv[i]);
            zip_discard(z);
            return 2;
        }
        *eq = '\0';
        const char *src = eq + 1;
        zip_source_t *s = src[0] == '@' ? zip_source_buffer(z, src + 1, strlen(src + 1), 0)
                                        : zip_source_file(z, src, 0, -1);
        if (!s || zip_file_add(z, argv[i], s, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
            fprintf(stderr, "mkfmu: cannot add %s: %s\n", src, zip_strerror(z));
            zip_source_free(s);
            zip_discard(z);
            return 1;
        }
    }
    if (zip_close(z) != 0) {
        fprintf(stderr, "mkfmu: cannot write %s: %s\n", argv[1], zip_strerror(z));
        zip_discard(z);
        return 1;
    }
    return 0;
}
