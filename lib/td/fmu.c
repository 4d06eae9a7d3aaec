/* fmu.c -- open an FMU: unzip (fmu_archive.c), read modelDescription.xml
 * (fmu_description.c), load the binary for this platform and resolve its
 * functions; accessors of the description. */
#define _GNU_SOURCE
#include "td/fmu_impl.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The platform directory of this build under binaries/ (FMI 3.0, FMI 2.0). */
#if defined(__x86_64__) && defined(__linux__)
#define PLATFORM3 "x86_64-linux"
#define PLATFORM2 "linux64"
#elif defined(__aarch64__) && defined(__linux__)
#define PLATFORM3 "aarch64-linux"
#define PLATFORM2 "aarch64-linux"
#else
#define PLATFORM3 "unknown"
#define PLATFORM2 "unknown"
#endif

/* A function table entry: symbol name (without the fmi2/fmi3 prefix),
 * offset of its pointer in the table, and whether it is required: 1
 * always, CS_ONLY for a co-simulation import, ME_ONLY for a model-exchange
 * import (COSA_FMU_CAP_MODEL_EXCHANGE). */
#define CS_ONLY 2
#define ME_ONLY 3
struct fn_entry {
    const char *name;
    size_t offset;
    int required;
};

#define F3(n, req) {#n, offsetof(fmu_functions3, n), req}
static const struct fn_entry fns3[] = {
    F3(GetVersion, 1),   F3(InstantiateCoSimulation, CS_ONLY), F3(FreeInstance, 1),
    F3(EnterInitializationMode, 1), F3(ExitInitializationMode, 1), F3(Terminate, 1),
    F3(DoStep, CS_ONLY), F3(GetFloat64, 1),     F3(SetFloat64, 1),
    F3(GetFMUState, 0),  F3(SetFMUState, 0),    F3(FreeFMUState, 0),
    F3(GetDirectionalDerivative, 0), F3(EnterEventMode, 0), F3(UpdateDiscreteStates, 0),
    F3(EnterStepMode, 0),
    F3(GetClock, 0),     F3(SetClock, 0),       F3(GetIntervalDecimal, 0),
    F3(SetIntervalDecimal, 0), F3(GetShiftDecimal, 0),
    F3(SetInt32, 0),     F3(SetBoolean, 0),     F3(SetString, 0),
    F3(GetInt32, 0),     F3(GetInt64, 0),       F3(SetInt64, 0),  F3(GetBoolean, 0),
    F3(InstantiateModelExchange, ME_ONLY), F3(EnterContinuousTimeMode, ME_ONLY),
    F3(CompletedIntegratorStep, ME_ONLY), F3(SetTime, ME_ONLY), F3(SetContinuousStates, ME_ONLY),
    F3(GetContinuousStateDerivatives, ME_ONLY), F3(GetEventIndicators, ME_ONLY),
    F3(GetContinuousStates, ME_ONLY), F3(GetNumberOfEventIndicators, 0)};
#define F2(n, req) {#n, offsetof(fmu_functions2, n), req}
static const struct fn_entry fns2[] = {
    F2(GetVersion, 1),   F2(Instantiate, 1),    F2(FreeInstance, 1),
    F2(SetupExperiment, 1), F2(EnterInitializationMode, 1), F2(ExitInitializationMode, 1),
    F2(Terminate, 1),    F2(DoStep, CS_ONLY),   F2(GetReal, 1),
    F2(SetReal, 1),      F2(SetRealInputDerivatives, 0), F2(GetFMUstate, 0),
    F2(SetFMUstate, 0),  F2(FreeFMUstate, 0),   F2(GetDirectionalDerivative, 0),
    F2(SetInteger, 0),   F2(SetBoolean, 0),     F2(SetString, 0),
    F2(GetInteger, 0),   F2(GetBoolean, 0),     F2(GetBooleanStatus, 0),
    F2(GetRealStatus, 0),
    F2(EnterEventMode, ME_ONLY), F2(NewDiscreteStates, ME_ONLY),
    F2(EnterContinuousTimeMode, ME_ONLY), F2(CompletedIntegratorStep, ME_ONLY),
    F2(SetTime, ME_ONLY), F2(SetContinuousStates, ME_ONLY), F2(GetDerivatives, ME_ONLY),
    F2(GetEventIndicators, ME_ONLY), F2(GetContinuousStates, ME_ONLY)};

/* The capabilities the description claims need these optional functions. */
static const char *const state_fns[] = {"GetFMUState", "SetFMUState", "FreeFMUState",
                                        "GetFMUstate", "SetFMUstate", "FreeFMUstate"};

static int needed(const struct fn_entry *e, unsigned caps)
{
    const int me = (caps & COSA_FMU_CAP_MODEL_EXCHANGE) != 0;
    if (e->required == CS_ONLY || e->required == ME_ONLY)
        return e->required == (me ? ME_ONLY : CS_ONLY);
    if (e->required)
        return 1;
    /* Model Exchange: the event functions of 3.0 are part of the interface */
    if (me && (strcmp(e->name, "EnterEventMode") == 0 ||
               strcmp(e->name, "UpdateDiscreteStates") == 0))
        return 1;
    if (caps & COSA_FMU_CAP_GET_SET_STATE)
        for (size_t i = 0; i < sizeof state_fns / sizeof *state_fns; i++)
            if (strcmp(e->name, state_fns[i]) == 0)
                return 1;
    if ((caps & COSA_FMU_CAP_DIRECTIONAL) && strcmp(e->name, "GetDirectionalDerivative") == 0)
        return 1;
    /* (the event functions are checked when events are turned on:
     * cosa_unit_fmu_set_events; an FMU is usable without them) */
    if ((caps & COSA_FMU_CAP_INTERPOLATE_INPUTS) && strcmp(e->name, "SetRealInputDerivatives") == 0)
        return 1;
    return 0;
}

/* The platforms present under binaries/ ("none" if there are none). */
static void platforms(const char *dir, char *buf, size_t size)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/binaries", dir);
    buf[0] = '\0';
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        const size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%s", n ? ", " : "", e->d_name);
    }
    if (d)
        closedir(d);
    if (!buf[0])
        snprintf(buf, size, "none");
}

/* Why a binary that dlopen refused is no binary for this machine, from its
 * ELF header (issue 32: the loader's "No such file or directory" for a
 * wrong-architecture .so hides that): "" when the header looks like this
 * machine's (then dlerror's words stand). */
static void elf_why(const char *so, char *why, size_t size)
{
    static const struct { int em; const char *name; } arch[] = {
        {3, "x86 (32-bit)"}, {8, "MIPS"}, {20, "PowerPC"}, {21, "PowerPC 64"},
        {40, "ARM (32-bit)"}, {62, "x86_64"}, {183, "AArch64"}, {243, "RISC-V"}};
#if defined(__x86_64__)
    const int host = 62, host64 = 1;
#elif defined(__aarch64__)
    const int host = 183, host64 = 1;
#elif defined(__i386__)
    const int host = 3, host64 = 0;
#else
    const int host = -1, host64 = (int)(sizeof(void *) == 8);
#endif
    why[0] = '\0';
    unsigned char h[20];
    FILE *fp = fopen(so, "rb");
    const size_t n = fp ? fread(h, 1, sizeof h, fp) : 0;
    if (fp)
        fclose(fp);
    if (n >= 2 && h[0] == 'M' && h[1] == 'Z') {
        snprintf(why, size, "a Windows binary (PE, 'MZ'), not an ELF shared object");
        return;
    }
    if (n < sizeof h || h[0] != 0x7f || h[1] != 'E' || h[2] != 'L' || h[3] != 'F') {
        snprintf(why, size, "not an ELF shared object (no ELF header)");
        return;
    }
    const int is64 = h[4] == 2;
    const int em = h[5] == 1 ? h[18] | h[19] << 8 : h[19] | h[18] << 8; /* EI_DATA: LE 1 */
    const char *name = NULL;
    for (size_t i = 0; i < sizeof arch / sizeof *arch; i++)
        if (arch[i].em == em)
            name = arch[i].name;
    if ((host >= 0 && em != host) || is64 != host64)
        snprintf(why, size, "an ELF binary for %s (e_machine %d, %d-bit), not for this "
                 "machine", name ? name : "another architecture", em, is64 ? 64 : 32);
}

static cosa_status load_binary(cosa_fmu *f, char *err, size_t errsize)
{
    const fmu_description *d = &f->desc;
    const int v3 = d->version == 3;
    char so[4400];
    snprintf(so, sizeof so, "%s/binaries/%s/%s.so", f->dir, v3 ? PLATFORM3 : PLATFORM2,
             d->identifier);
    struct stat st;
    if (stat(so, &st) != 0) {
        char plats[512];
        platforms(f->dir, plats, sizeof plats);
        snprintf(err, errsize, "no binary for this platform (binaries/%s/%s.so); platforms in "
                 "the FMU: %s", v3 ? PLATFORM3 : PLATFORM2, d->identifier, plats);
        return COSA_EFMU;
    }
    /* RTLD_LOCAL: two FMUs export the same names; each handle resolves its own */
    f->lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!f->lib) {
        const char *e = dlerror();
        char why[160];
        elf_why(so, why, sizeof why);
        if (why[0])
            snprintf(err, errsize, "cannot load the binary binaries/%s/%s.so: it is %s",
                     v3 ? PLATFORM3 : PLATFORM2, d->identifier, why);
        else
            snprintf(err, errsize, "cannot load the binary: %.300s", e ? e : "unknown error");
        return COSA_EFMU;
    }
    const struct fn_entry *tab = v3 ? fns3 : fns2;
    const size_t ntab = v3 ? sizeof fns3 / sizeof *fns3 : sizeof fns2 / sizeof *fns2;
    char *base = v3 ? (char *)&f->f3 : (char *)&f->f2;
    for (size_t i = 0; i < ntab; i++) {
        char sym[96];
        snprintf(sym, sizeof sym, "fmi%d%s", d->version, tab[i].name);
        void *p = dlsym(f->lib, sym);
        if (!p && needed(&tab[i], d->caps)) {
            snprintf(err, errsize, "the binary does not export %s%s", sym,
                     tab[i].required == 1 ? ""
                     : tab[i].required == CS_ONLY ? " (a co-simulation FMU)"
                     : tab[i].required == ME_ONLY ? " (a model-exchange FMU)"
                     : (d->caps & COSA_FMU_CAP_MODEL_EXCHANGE) &&
                               strstr(sym, "Mode")
                         ? " (a model-exchange FMU)"
                         : " (the model description claims the capability)");
            return COSA_EFMU;
        }
        memcpy(base + tab[i].offset, &p, sizeof p);
    }
    return COSA_OK;
}

/* The resources directory as the instantiate functions take it: an
 * absolute path with a trailing '/' (FMI 3.0 resourcePath) and a file URI
 * (FMI 2.0 fmuResourceLocation, RFC 3986: characters other than unreserved
 * ones and '/' percent-encoded).  Exporters read it at instantiation, some
 * (OpenModelica's) without checking for NULL. */
static void resource_location(cosa_fmu *f)
{
    char abs[PATH_MAX];
    if (!realpath(f->dir, abs))
        snprintf(abs, sizeof abs, "%s", f->dir);
    snprintf(f->res3, sizeof f->res3, "%s/resources/", abs);
    size_t n = (size_t)snprintf(f->res2, sizeof f->res2, "file://");
    for (const unsigned char *c = (const unsigned char *)f->res3; *c && n + 4 < sizeof f->res2;
         c++) {
        if (isalnum(*c) || strchr("-._~/", *c))
            f->res2[n++] = (char)*c;
        else
            n += (size_t)snprintf(f->res2 + n, 4, "%%%02X", *c);
    }
    f->res2[n] = '\0';
}

static cosa_status fmu_open(const char *path, int iface, unsigned flags, cosa_fmu **out,
                            char *err, size_t errsize);

cosa_status cosa_fmu_open(const char *path, cosa_fmu **out, char *err, size_t errsize)
{
    return cosa_fmu_open_as(path, COSA_FMU_IFACE_AUTO, out, err, errsize);
}

cosa_status cosa_fmu_open_flags(const char *path, unsigned flags, cosa_fmu **out, char *err,
                                size_t errsize)
{
    const int iface = (flags & COSA_FMU_OPEN_ME)   ? COSA_FMU_IFACE_ME
                      : (flags & COSA_FMU_OPEN_CS) ? COSA_FMU_IFACE_CS
                                                   : COSA_FMU_IFACE_AUTO;
    return fmu_open(path, iface, flags & COSA_FMU_OPEN_DISCRETE_IO, out, err, errsize);
}

cosa_status cosa_fmu_open_as(const char *path, int iface, cosa_fmu **out, char *err,
                             size_t errsize)
{
    return fmu_open(path, iface, 0u, out, err, errsize);
}

/* The one opening: the interface iface (COSA_FMU_IFACE_*) and the flags
 * (COSA_FMU_OPEN_*). */
static cosa_status fmu_open(const char *path, int iface, unsigned flags, cosa_fmu **out,
                            char *err, size_t errsize)
{
    if (out)
        *out = NULL;
    if (!path || !out || !err || errsize == 0)
        return COSA_EINVAL;
    err[0] = '\0';
    cosa_fmu *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errsize, "out of memory");
        return COSA_ENOMEM;
    }
    const int x = fmu_archive_extract(path, f->dir, sizeof f->dir, err, errsize);
    if (x != 0) {
        free(f);
        return x == -1 ? COSA_EFMU : x == -2 ? COSA_EIO : COSA_ENOMEM;
    }
    resource_location(f);
    char md[4200];
    snprintf(md, sizeof md, "%s/modelDescription.xml", f->dir);
    struct stat st;
    cosa_status s = COSA_OK;
    if (stat(md, &st) != 0) {
        snprintf(err, errsize, "not an FMU: no modelDescription.xml in the archive");
        s = COSA_EFMU;
    } else if (fmu_description_read_as(md, iface, flags, &f->desc, err, errsize) != 0) {
        s = COSA_EFMU;
    } else {
        s = load_binary(f, err, errsize);
    }
    if (s != COSA_OK) {
        cosa_fmu_close(f);
        return s;
    }
    *out = f;
    return COSA_OK;
}

void cosa_fmu_close(cosa_fmu *f)
{
    if (!f)
        return;
    if (f->lib)
        dlclose(f->lib);
    fmu_description_free(&f->desc);
    fmu_archive_remove(f->dir);
    free(f);
}

int cosa_fmu_version(const cosa_fmu *f) { return f ? f->desc.version : 0; }
const char *cosa_fmu_model_name(const cosa_fmu *f)
{
    return f && f->desc.model_name ? f->desc.model_name : "";
}
const char *cosa_fmu_identifier(const cosa_fmu *f) { return f ? f->desc.identifier : ""; }
const char *cosa_fmu_token(const cosa_fmu *f) { return f && f->desc.token ? f->desc.token : ""; }
const char *cosa_fmu_directory(const cosa_fmu *f) { return f ? f->dir : ""; }
unsigned cosa_fmu_caps(const cosa_fmu *f) { return f ? f->desc.caps : 0u; }
int cosa_fmu_input_smoothness(const cosa_fmu *f) { return f ? f->desc.smoothness : 0; }
size_t cosa_fmu_nvar(const cosa_fmu *f) { return f ? f->desc.nvar : 0; }
const cosa_fmu_var *cosa_fmu_var_at(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nvar ? &f->desc.vars[i] : NULL;
}
size_t cosa_fmu_nstate(const cosa_fmu *f) { return f ? f->desc.nstate : 0; }
/* the index lists: SIZE_MAX for an index out of range */
size_t cosa_fmu_state(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nstate ? f->desc.states[i] : SIZE_MAX;
}
size_t cosa_fmu_state_derivative(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nstate ? f->desc.derivs[i] : SIZE_MAX;
}
size_t cosa_fmu_ninput(const cosa_fmu *f) { return f ? f->desc.nin : 0; }
size_t cosa_fmu_input(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nin ? f->desc.inputs[i] : SIZE_MAX;
}
size_t cosa_fmu_noutput(const cosa_fmu *f) { return f ? f->desc.nout : 0; }
size_t cosa_fmu_output(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nout ? f->desc.outputs[i] : SIZE_MAX;
}
size_t cosa_fmu_nother(const cosa_fmu *f) { return f ? f->desc.nother : 0; }
const cosa_fmu_other *cosa_fmu_other_at(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nother ? &f->desc.other[i] : NULL;
}
size_t cosa_fmu_nclock(const cosa_fmu *f) { return f ? f->desc.nclock : 0; }
const cosa_fmu_clock *cosa_fmu_clock_at(const cosa_fmu *f, size_t i)
{
    return f && i < f->desc.nclock ? &f->desc.clocks[i] : NULL;
}
double cosa_fmu_start_time(const cosa_fmu *f) { return f ? f->desc.start_time : NAN; }
double cosa_fmu_stop_time(const cosa_fmu *f) { return f ? f->desc.stop_time : NAN; }
