/* fuzz_modelfile.c -- libFuzzer harness for the model-file reader.
 *
 * Each input is parsed; a failure must leave one line "fuzz:LINE: ..." and no
 * model.  An accepted model is built at its defaults, updated, asked for its
 * initial state and names, and dumped: cosa_model_dump re-parses its own
 * output and checks A, B, C, D, L and x0 bit for bit, so a dump failure
 * (other than out of memory) is a bug and aborts.
 *
 * Inputs starting with "\xffDUMP" instead pick a built-in linear model and
 * parameter values (one selector byte each: interesting values such as -0,
 * 1e-300, 5e-324, 1/3, or the next 8 bytes as a raw double) and require that
 * whenever the model can be built, cosa_model_dump succeeds (its own check
 * of the round trip passes).
 *
 * Build (from the source root):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     -Ilib -Imodels tests/fuzz/fuzz_modelfile.c <lib and models sources> \
 *     $(pkg-config --libs lapacke openblas) -lm -o fuzz_modelfile
 *   ./fuzz_modelfile -dict=tests/fuzz/modelfile.dict -max_len=4096 CORPUS tests/fuzz/corpus */
#define _POSIX_C_SOURCE 200809L
#include "cosa.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Systems larger than this are parsed but not built (keeps executions fast). */
#define FUZZ_MAXDIM 200

static void check_message(const char *err)
{
    /* "fuzz:<digits>: <message>" on one line */
    if (strncmp(err, "fuzz:", 5) != 0)
        abort();
    const char *p = err + 5;
    if (!isdigit((unsigned char)*p))
        abort();
    while (isdigit((unsigned char)*p))
        p++;
    if (p[0] != ':' || p[1] != ' ' || strlen(p) < 4 || strchr(err, '\n'))
        abort();
}

static void fuzz_builtin_dump(const uint8_t *data, size_t size)
{
    static const double pick[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 7.0, 1.0 / 3.0, 0.1,
                                  1e-300, 5e-324, 1e300, 1e10, -100.0, 1e-7, 12.0, 1.5};
    const size_t npick = sizeof pick / sizeof *pick;
    /* the models with a linear form (the registry lists them first) */
    size_t nlinear = 0;
    while (cosa_model_is_linear(cosa_model_at(nlinear)))
        nlinear++;
    if (size < 1 || nlinear == 0)
        return;
    const cosa_model *m = cosa_model_at(data[0] % nlinear);
    data++, size--;
    double par[64];
    if (m->nparam > 64)
        return;
    cosa_model_defaults(m, par);
    for (size_t i = 0; i < m->nparam && size > 0; i++) {
        uint8_t sel = *data++;
        size--;
        if (sel < 128)
            continue; /* keep the default */
        if (sel - 128u < npick) {
            par[i] = pick[sel - 128u];
        } else if (sel == 255 && size >= 8) {
            double v;
            memcpy(&v, data, 8);
            data += 8, size -= 8;
            par[i] = v;
        }
    }
    int kn = cosa_model_param_index(m, "n");
    if (kn >= 0 && !(par[kn] <= 40)) /* keep chain small: executions stay fast */
        return;
    int finite = 1;
    for (size_t i = 0; i < m->nparam; i++)
        finite &= isfinite(par[i]) != 0;
    cosa_system *sys = NULL;
    if (m->create(m, par, &sys) != COSA_OK)
        return;
    cosa_system_free(sys);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        abort();
    cosa_status st = cosa_model_dump(f, m, par);
    fclose(f);
    /* non-finite values cannot be written; everything else must round-trip */
    if (st != (finite ? COSA_OK : COSA_ENONFINITE) && st != COSA_ENOMEM)
        abort();
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 5 && memcmp(data, "\xff" "DUMP", 5) == 0) {
        fuzz_builtin_dump(data + 5, size - 5);
        return 0;
    }
    cosa_model *m = (cosa_model *)&m;
    char err[512];
    cosa_status st = cosa_model_file_parse((const char *)data, size, "fuzz", &m, err, sizeof err);
    if (st != COSA_OK) {
        if (m != NULL)
            abort();
        if (st != COSA_ENOMEM)
            check_message(err);
        return 0;
    }
    double *par = malloc((m->nparam + 1) * sizeof *par);
    if (!par)
        abort();
    cosa_model_defaults(m, par);
    cosa_system *sys = NULL;
    /* dimensions from the names (the system is not built yet) */
    size_t nx = 0, nu = 0, ny = 0;
    while (m->state_name(m, par, nx))
        nx++;
    while (m->input_name(m, par, nu))
        nu++;
    while (m->output_name(m, par, ny))
        ny++;
    if (nx + nu + ny <= FUZZ_MAXDIM && m->create(m, par, &sys) == COSA_OK) {
        if (cosa_system_nx(sys) != nx || cosa_system_nu(sys) != nu || cosa_system_ny(sys) != ny)
            abort();
        if (m->update(m, par, sys) != COSA_OK)
            abort();
        double *x0 = malloc((nx + 1) * sizeof *x0);
        if (!x0 || m->initial_state(m, par, x0) != COSA_OK)
            abort();
        free(x0);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
            abort();
        st = cosa_model_dump(f, m, par);
        fclose(f);
        if (st != COSA_OK && st != COSA_ENOMEM)
            abort();
        free(text);
    }
    cosa_system_free(sys);
    free(par);
    cosa_model_free(m);
    return 0;
}
