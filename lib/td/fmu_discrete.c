/* fmu_discrete.c -- the typed get/set of an FMU unit's discrete signals:
 * Integer, Boolean and Enumeration inputs and outputs, which a unit set
 * copies from output to input at every communication point and holds in
 * between (lib/td/discrete.c; doc/ssp.md "Discrete signals").  FMI 3.0:
 * fmi3GetInt32/SetInt32 (Int32), fmi3GetInt64/SetInt64 (Int64 and
 * Enumeration), fmi3GetBoolean/SetBoolean; FMI 2.0: fmi2GetInteger/
 * SetInteger (Integer and Enumeration), fmi2GetBoolean/SetBoolean.  A value
 * travels as a 64-bit integer (a Boolean as 0 or 1). */
#include "td/unit_fmu_impl.h"
#include "td/unit_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int cosa_fmu_discrete_class(const char *type)
{
    if (!type)
        return 0;
    static const char *const ints[] = {"Integer", "Int8", "UInt8", "Int16", "UInt16",
                                       "Int32",   "UInt32", "Int64", "UInt64"};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (strcmp(type, ints[i]) == 0)
            return 'i';
    return strcmp(type, "Boolean") == 0       ? 'b'
           : strcmp(type, "Enumeration") == 0 ? 'e'
                                              : 0;
}

/* The transfer kind of a type: '4' 32-bit (FMI 3.0 Int32, FMI 2.0 Integer
 * and Enumeration), '8' 64-bit (FMI 3.0 Int64 and Enumeration), 'b'
 * Boolean, 0 none cosa exchanges. */
static char kind_of(int version, const char *type)
{
    if (strcmp(type, "Boolean") == 0)
        return 'b';
    if (version == 2)
        return strcmp(type, "Integer") == 0 || strcmp(type, "Enumeration") == 0 ? '4' : 0;
    if (strcmp(type, "Int32") == 0)
        return '4';
    return strcmp(type, "Int64") == 0 || strcmp(type, "Enumeration") == 0 ? '8' : 0;
}

/* Whether the FMU exports the get (set = 0) or set function of kind k. */
static int exports(const cosa_fmu *m, char k, int set)
{
    if (m->desc.version == 3)
        return k == '4'   ? (set ? m->f3.SetInt32 != NULL : m->f3.GetInt32 != NULL)
               : k == '8' ? (set ? m->f3.SetInt64 != NULL : m->f3.GetInt64 != NULL)
                          : (set ? m->f3.SetBoolean != NULL : m->f3.GetBoolean != NULL);
    return k == 'b' ? (set ? m->f2.SetBoolean != NULL : m->f2.GetBoolean != NULL)
                    : (set ? m->f2.SetInteger != NULL : m->f2.GetInteger != NULL);
}

static const char *fn_name(int version, char k, int set)
{
    if (version == 3)
        return k == '4'   ? (set ? "fmi3SetInt32" : "fmi3GetInt32")
               : k == '8' ? (set ? "fmi3SetInt64" : "fmi3GetInt64")
                          : (set ? "fmi3SetBoolean" : "fmi3GetBoolean");
    return k == 'b' ? (set ? "fmi2SetBoolean" : "fmi2GetBoolean")
                    : (set ? "fmi2SetInteger" : "fmi2GetInteger");
}

cosa_status fmu_discrete_port(cosa_unit *u, const char *name, int input, fmu_dport *p,
                              char *why, size_t whysize)
{
    if (!u || !name || !p || !cosa_unit_fmu_name(u))
        return COSA_EINVAL;
    const fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const cosa_fmu_other *o = NULL;
    for (size_t i = 0; i < cosa_fmu_nother(m) && !o; i++)
        if (strcmp(cosa_fmu_other_at(m, i)->name, name) == 0)
            o = cosa_fmu_other_at(m, i);
    const int want = input ? COSA_FMU_INPUT : COSA_FMU_OUTPUT;
    if (!o || o->causality != want || !cosa_fmu_discrete_class(o->type)) {
        snprintf(why, whysize, "FMU %s has no Integer, Boolean or Enumeration %s '%s'", f->name,
                 input ? "input" : "output", name);
        return COSA_EPARAM;
    }
    const char k = kind_of(m->desc.version, o->type);
    if (!k) {
        snprintf(why, whysize, "%s '%s' of FMU %s is a%s %s: cosa exchanges Int32, Int64, "
                 "Boolean and Enumeration signals (FMI 2.0: Integer, Boolean, Enumeration)",
                 input ? "input" : "output", name, f->name, o->type[0] == 'I' ? "n" : "",
                 o->type);
        return COSA_EUNSUPPORTED;
    }
    if (!exports(m, k, input)) {
        snprintf(why, whysize, "FMU %s does not export %s (for its %s '%s')", f->name,
                 fn_name(m->desc.version, k, input), input ? "input" : "output", name);
        return COSA_EUNSUPPORTED;
    }
    p->vr = o->vr;
    p->kind = k;
    p->cls = cosa_fmu_discrete_class(o->type);
    return COSA_OK;
}

cosa_status fmu_discrete_get(cosa_unit *u, const fmu_dport *p, long long *v)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const unsigned vr = p->vr;
    int s;
    if (m->desc.version == 3) {
        fmi3Int32 i4 = 0;
        fmi3Int64 i8 = 0;
        fmi3Boolean b = false;
        s = p->kind == '4'   ? m->f3.GetInt32(f->inst, &vr, 1, &i4, 1)
            : p->kind == '8' ? m->f3.GetInt64(f->inst, &vr, 1, &i8, 1)
                             : m->f3.GetBoolean(f->inst, &vr, 1, &b, 1);
        *v = p->kind == '4' ? i4 : p->kind == '8' ? i8 : b ? 1 : 0;
    } else {
        fmi2Integer i = 0;
        s = p->kind == 'b' ? m->f2.GetBoolean(f->inst, &vr, 1, &i)
                           : m->f2.GetInteger(f->inst, &vr, 1, &i);
        *v = p->kind == 'b' ? i != 0 : i;
    }
    if (s > 1)
        return fmu_unit_fail(u, fn_name(m->desc.version, p->kind, 0), cosa_unit_time(u), s);
    fmu_unit_warned(f, fn_name(m->desc.version, p->kind, 0), cosa_unit_time(u), s);
    return COSA_OK;
}

cosa_status fmu_discrete_set(cosa_unit *u, const fmu_dport *p, long long v)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const unsigned vr = p->vr;
    if (p->kind == '4' && (v < INT32_MIN || v > INT32_MAX)) {
        cosa_unit_fail(u, "FMU %s: %lld does not fit the 32-bit integer input (value "
                       "reference %u) at t = %.17g", f->name, v, vr, cosa_unit_time(u));
        return COSA_ERANGE;
    }
    int s;
    if (m->desc.version == 3) {
        const fmi3Int32 i4 = (fmi3Int32)v;
        const fmi3Int64 i8 = (fmi3Int64)v;
        const fmi3Boolean b = v != 0;
        s = p->kind == '4'   ? m->f3.SetInt32(f->inst, &vr, 1, &i4, 1)
            : p->kind == '8' ? m->f3.SetInt64(f->inst, &vr, 1, &i8, 1)
                             : m->f3.SetBoolean(f->inst, &vr, 1, &b, 1);
    } else {
        const fmi2Integer i = p->kind == 'b' ? v != 0 : (fmi2Integer)v;
        s = p->kind == 'b' ? m->f2.SetBoolean(f->inst, &vr, 1, &i)
                           : m->f2.SetInteger(f->inst, &vr, 1, &i);
    }
    if (s > 1)
        return fmu_unit_fail(u, fn_name(m->desc.version, p->kind, 1), cosa_unit_time(u), s);
    fmu_unit_warned(f, fn_name(m->desc.version, p->kind, 1), cosa_unit_time(u), s);
    return COSA_OK;
}

/* ---- Float64 / Real variables as discrete signals ---- */

/* The Float64/Real variable name of FMU m (index *at), or NULL. */
static const cosa_fmu_var *real_var(const cosa_fmu *m, const char *name, size_t *at)
{
    for (size_t i = 0; i < cosa_fmu_nvar(m); i++)
        if (strcmp(cosa_fmu_var_at(m, i)->name, name) == 0) {
            *at = i;
            return cosa_fmu_var_at(m, i);
        }
    return NULL;
}

static const cosa_fmu_other *float32_var(const cosa_fmu *m, const char *name)
{
    for (size_t i = 0; i < cosa_fmu_nother(m); i++)
        if (strcmp(cosa_fmu_other_at(m, i)->name, name) == 0 &&
            strcmp(cosa_fmu_other_at(m, i)->type, "Float32") == 0)
            return cosa_fmu_other_at(m, i);
    return NULL;
}

int fmu_dreal_is_real(cosa_unit *u, const char *name)
{
    if (!u || !name || !cosa_unit_fmu_name(u))
        return 0;
    const cosa_fmu *m = ((const fmu_unit *)cosa_unit_impl(u))->fmu;
    size_t at;
    return real_var(m, name, &at) != NULL || float32_var(m, name) != NULL;
}

cosa_status fmu_dreal_port(cosa_unit *u, const char *name, int input, fmu_dport *p,
                           long *row, char *why, size_t whysize)
{
    if (!u || !name || !p || !row || !cosa_unit_fmu_name(u))
        return COSA_EINVAL;
    const fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    if (float32_var(m, name)) {
        snprintf(why, whysize, "%s '%s' of FMU %s is a Float32: cosa exchanges Float64 "
                 "discrete signals", input ? "input" : "output", name, f->name);
        return COSA_EUNSUPPORTED;
    }
    size_t at = 0;
    const cosa_fmu_var *v = real_var(m, name, &at);
    const int want = input ? COSA_FMU_INPUT : COSA_FMU_OUTPUT;
    if (!v || v->causality != want || (!input && v->variability == COSA_FMU_CONTINUOUS)) {
        snprintf(why, whysize, "FMU %s has no %sFloat64/Real %s '%s'", f->name,
                 input ? "" : "discrete or constant ", input ? "input" : "output", name);
        return COSA_EPARAM;
    }
    if (v->nclocks) {
        snprintf(why, whysize, "%s '%s' of FMU %s is clocked: not supported as a discrete "
                 "signal", input ? "input" : "output", name, f->name);
        return COSA_EUNSUPPORTED;
    }
    *row = -1;
    for (size_t j = 0; input && j < cosa_fmu_ninput(m); j++)
        if (cosa_fmu_input(m, j) == at)
            *row = (long)j;
    p->vr = v->vr;
    p->kind = 'r';
    p->cls = 'r';
    return COSA_OK;
}

cosa_status fmu_dreal_get(cosa_unit *u, const fmu_dport *p, double *v)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const unsigned vr = p->vr;
    const int v3 = m->desc.version == 3;
    const int s = v3 ? m->f3.GetFloat64(f->inst, &vr, 1, v, 1) : m->f2.GetReal(f->inst, &vr, 1, v);
    const char *fn = v3 ? "fmi3GetFloat64 (discrete signals)" : "fmi2GetReal (discrete signals)";
    if (s > 1)
        return fmu_unit_fail(u, fn, cosa_unit_time(u), s);
    fmu_unit_warned(f, fn, cosa_unit_time(u), s);
    return COSA_OK;
}

cosa_status fmu_dreal_set(cosa_unit *u, const fmu_dport *p, double v)
{
    fmu_unit *f = cosa_unit_impl(u);
    const cosa_fmu *m = f->fmu;
    const unsigned vr = p->vr;
    const int v3 = m->desc.version == 3;
    const int s = v3 ? m->f3.SetFloat64(f->inst, &vr, 1, &v, 1) : m->f2.SetReal(f->inst, &vr, 1, &v);
    const char *fn = v3 ? "fmi3SetFloat64 (discrete signals)" : "fmi2SetReal (discrete signals)";
    if (s > 1)
        return fmu_unit_fail(u, fn, cosa_unit_time(u), s);
    fmu_unit_warned(f, fn, cosa_unit_time(u), s);
    return COSA_OK;
}
