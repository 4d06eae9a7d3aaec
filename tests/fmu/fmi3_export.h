/* fmi3_export.h -- what cosa's test FMUs (tests/fmu/*_fmu.c) export alike:
 * the visibility of the exported FMI functions and, as macros each FMU
 * expands once with its own instance type, the FMU-state functions that
 * copy the whole instance and the Float64 accessors that loop over the
 * FMU's per-reference get/set.  Status codes are the standard's: 0 OK,
 * 3 Error.  Written for cosa's tests only; each FMU keeps its model. */
#ifndef COSA_TEST_FMI3_EXPORT_H
#define COSA_TEST_FMI3_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

/* fmi3GetFMUState/SetFMUState/FreeFMUState for an FMU whose state is a
 * struct of type T, PART (an lvalue of the instance pointer c): the whole
 * instance, *(T *)c, or the model inside it. */
#define FMI3_STATE_FUNCTIONS(T) FMI3_STATE_OF(T, *(T *)c)
#define FMI3_STATE_OF(T, PART)                                                                    \
    EXPORT int fmi3GetFMUState(void *c, void **state)                                             \
    {                                                                                             \
        T *s_ = *state ? *state : malloc(sizeof *s_);                                             \
        if (!s_)                                                                                  \
            return 3;                                                                             \
        *s_ = PART;                                                                               \
        *state = s_;                                                                              \
        return 0;                                                                                 \
    }                                                                                             \
    EXPORT int fmi3SetFMUState(void *c, void *state)                                              \
    {                                                                                             \
        PART = *(T *)state;                                                                       \
        return 0;                                                                                 \
    }                                                                                             \
    EXPORT int fmi3FreeFMUState(void *c, void **state)                                            \
    {                                                                                             \
        (void)c;                                                                                  \
        free(*state);                                                                             \
        *state = NULL;                                                                            \
        return 0;                                                                                 \
    }

/* fmi3EnterInitializationMode of an FMU that only notes the start time t0
 * in TIME (an lvalue of the instance pointer c); tolerance and stop time
 * unused. */
#define FMI3_ENTER_INIT_SETS(TIME)                                                                \
    EXPORT int fmi3EnterInitializationMode(void *c, bool tolDef, double tol, double t0,          \
                                           bool stopDef, double stop)                            \
    {                                                                                             \
        (void)tolDef; (void)tol; (void)stopDef; (void)stop;                                       \
        TIME = t0;                                                                                \
        return 0;                                                                                 \
    }

/* fmi3GetFloat64/SetFloat64 through GET(obj, vr, &v) and SET(obj, vr, v),
 * non-zero for an unknown reference; OBJ is an expression of the instance
 * pointer c (c itself, or the model inside it).  Error on a value count
 * other than the reference count (no arrays). */
#define FMI3_FLOAT64_VIA(GET, SET, OBJ)                                                           \
    EXPORT int fmi3GetFloat64(void *c, const uint32_t *vr, size_t n, double *v, size_t nv)        \
    {                                                                                             \
        if (nv != n)                                                                              \
            return 3;                                                                             \
        for (size_t i = 0; i < n; i++)                                                            \
            if (GET(OBJ, vr[i], &v[i]))                                                           \
                return 3;                                                                         \
        return 0;                                                                                 \
    }                                                                                             \
    EXPORT int fmi3SetFloat64(void *c, const uint32_t *vr, size_t n, const double *v, size_t nv)  \
    {                                                                                             \
        if (nv != n)                                                                              \
            return 3;                                                                             \
        for (size_t i = 0; i < n; i++)                                                            \
            if (SET(OBJ, vr[i], v[i]))                                                            \
                return 3;                                                                         \
        return 0;                                                                                 \
    }

#endif
