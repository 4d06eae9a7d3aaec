/* runnable.c -- cosa_case_runnable on a model file: one line per scheme,
 * "NAME yes" or "NAME no: WHY" (tests/test_one_call_api.sh compares the
 * reasons with cosa advise's "not ranked" notes). */
#include <cosa.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    char err[512];
    cosa_case *c = NULL;
    if (argc < 3) {
        fprintf(stderr, "usage: runnable MODEL-FILE SCHEME...\n");
        return 2;
    }
    if (cosa_case_load(argv[1], &c, err, sizeof err) != COSA_OK) {
        fprintf(stderr, "runnable: %s\n", err);
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        cosa_scheme s;
        char why[512];
        if (cosa_scheme_parse(argv[i], &s) != COSA_OK) {
            fprintf(stderr, "runnable: unknown scheme '%s'\n", argv[i]);
            cosa_case_free(c);
            return 2;
        }
        if (cosa_case_runnable(c, &s, why, sizeof why))
            printf("%s yes\n", argv[i]);
        else
            printf("%s no: %s\n", argv[i], why);
    }
    cosa_case_free(c);
    return 0;
}
