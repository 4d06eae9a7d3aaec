/* fmu_description.c -- the parts of modelDescription.xml (FMI 3.0 and 2.0)
 * that cosa needs, read with libxml2: version, CoSimulation capabilities,
 * the Float64/Real variables and ModelStructure's outputs and derivatives. */
#include "td/fmu_impl.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Attribute as a malloc'ed string (NULL if absent). */
static char *attr(xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    if (!v)
        return NULL;
    char *s = strdup((const char *)v);
    xmlFree(v);
    return s;
}

/* Boolean attribute: 1 for "true", else 0. */
static int attr_true(xmlNode *n, const char *name)
{
    char *v = attr(n, name);
    const int t = v && strcmp(v, "true") == 0;
    free(v);
    return t;
}

static int is(xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static xmlNode *child(xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (is(c, name))
            return c;
    return NULL;
}

/* Unsigned integer attribute; 0 and *out, or -1. */
static int attr_uint(xmlNode *n, const char *name, unsigned long *out)
{
    char *v = attr(n, name), *end;
    if (!v)
        return -1;
    const unsigned long x = strtoul(v, &end, 10);
    const int ok = end != v && *end == '\0' && v[0] != '-';
    free(v);
    if (!ok)
        return -1;
    *out = x;
    return 0;
}

static int lookup(const char *v, const char *const *names, int n, int dflt)
{
    if (!v)
        return dflt;
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static const char *const causalities[] = {"parameter", "calculatedParameter", "input", "output",
                                          "local",     "independent",         "structuralParameter"};
static const char *const variabilities[] = {"constant", "fixed", "tunable", "discrete",
                                            "continuous"};

void fmu_description_free(fmu_description *d)
{
    if (!d)
        return;
    fmu_clocks_free(d);
    for (size_t i = 0; i < d->nvar; i++)
        free(d->vars[i].name);
    free(d->vars);
    free(d->model_name);
    free(d->token);
    free(d->identifier);
    free(d->states);
    free(d->derivs);
    free(d->inputs);
    free(d->outputs);
    for (size_t i = 0; i < d->nother; i++) {
        free(d->other[i].name);
        free(d->other[i].type);
    }
    free(d->other);
    memset(d, 0, sizeof *d);
}

/* One variable (n: Float64 of 3.0, ScalarVariable with a Real child of
 * 2.0) appended to d; *deriv the raw derivative attribute (3.0: the state's
 * value reference; 2.0: its 1-based index among all ScalarVariables), or 0. */
static int add_var(fmu_description *d, xmlNode *n, xmlNode *typed, unsigned long *deriv,
                   char *err, size_t errsize)
{
    cosa_fmu_var v = {0};
    v.derivative_of = -1;
    unsigned long vr;
    v.name = attr(n, "name");
    if (!v.name || attr_uint(n, "valueReference", &vr) != 0 || vr > 0xffffffffUL) {
        snprintf(err, errsize, "modelDescription.xml: variable '%.100s' without a valid name "
                 "or valueReference", v.name ? v.name : "?");
        free(v.name);
        return -1;
    }
    v.vr = (unsigned)vr;
    char *c = attr(n, "causality"), *va = attr(n, "variability"), *st = attr(typed, "start");
    v.intermediate_update = attr_true(n, "intermediateUpdate");
    v.causality = lookup(c, causalities, 7, COSA_FMU_LOCAL);
    v.variability = lookup(va, variabilities, 5, COSA_FMU_CONTINUOUS);
    int bad = v.causality < 0 || v.variability < 0;
    if (st) {
        char *end;
        v.start = strtod(st, &end);
        v.has_start = 1;
        bad |= end == st || *end != '\0';
    }
    if (bad)
        snprintf(err, errsize, "modelDescription.xml: variable '%.100s': bad %s '%.40s'", v.name,
                 v.causality < 0 ? "causality" : v.variability < 0 ? "variability" : "start",
                 v.causality < 0 ? c : v.variability < 0 ? va : st);
    free(c);
    free(va);
    free(st);
    *deriv = 0;
    if (!bad && xmlHasProp(typed, (const xmlChar *)"derivative")) {
        bad = attr_uint(typed, "derivative", deriv) != 0 || *deriv == 0;
        if (bad)
            snprintf(err, errsize, "modelDescription.xml: variable '%.100s': bad derivative",
                     v.name);
    }
    if (bad) {
        free(v.name);
        return -1;
    }
    cosa_fmu_var *nv = realloc(d->vars, (d->nvar + 1) * sizeof *nv);
    if (!nv) {
        free(v.name);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    d->vars = nv;
    d->vars[d->nvar++] = v;
    return 0;
}

/* A variable cosa does not read (typed: its type element; array: a
 * Dimension child) appended to d->other (not a scalar Clock); 0, or -1
 * (out of memory). */
static int add_other(fmu_description *d, xmlNode *n, xmlNode *typed, int array)
{
    if (!array && is(typed, "Clock"))
        return 0; /* a scalar Clock is fmu_clocks.c's: cosa drives it */
    cosa_fmu_other o = {0};
    unsigned long vr = 0;
    char *c = attr(n, "causality"), *va = attr(n, "variability");
    o.causality = lookup(c, causalities, 7, COSA_FMU_LOCAL);
    o.variability = lookup(va, variabilities, 5,
                           is(typed, "Float64") || is(typed, "Real") || is(typed, "Float32")
                               ? COSA_FMU_CONTINUOUS : COSA_FMU_DISCRETE);
    free(c);
    free(va);
    o.vr = attr_uint(n, "valueReference", &vr) == 0 ? (unsigned)vr : 0u;
    o.name = attr(n, "name");
    const char *tn = (const char *)typed->name;
    o.type = malloc(strlen(tn) + 8);
    cosa_fmu_other *no = o.name && o.type ? realloc(d->other, (d->nother + 1) * sizeof *no) : NULL;
    if (!no) {
        free(o.name);
        free(o.type);
        return -1;
    }
    sprintf(o.type, "%s%s", tn, array ? " array" : "");
    d->other = no;
    d->other[d->nother++] = o;
    return 0;
}

/* Why an FMU without a CoSimulation element is refused: an FMI 3.0 FMU that
 * offers only Scheduled Execution is named so (cosa imports co-simulation). */
static void no_cosimulation(xmlNode *root, int version, char *err, size_t errsize)
{
    if (version == 3 && child(root, "ScheduledExecution"))
        snprintf(err, errsize, "not a co-simulation FMU: it offers only Scheduled Execution "
                               "(a ScheduledExecution element, no CoSimulation element), an "
                               "interface cosa does not import");
    else
        snprintf(err, errsize, "not a co-simulation or model-exchange FMU (no CoSimulation "
                               "element, no ModelExchange element)");
}

/* The FMI 3.0 co-simulation concepts of CoSimulation element cs: input
 * smoothness, event mode, early return, and a ScheduledExecution element. */
static void fmi3_attributes(xmlNode *root, xmlNode *cs, fmu_description *d)
{
    unsigned long sm = 0;
    d->smoothness = attr_uint(cs, "recommendedIntermediateInputSmoothness", &sm) == 0 &&
                            sm < 64 ? (int)sm : 0;
    if (attr_true(cs, "hasEventMode"))
        d->caps |= COSA_FMU_CAP_EVENT_MODE;
    if (attr_true(cs, "canReturnEarlyAfterIntermediateUpdate"))
        d->caps |= COSA_FMU_CAP_EARLY_RETURN;
    if (child(root, "ScheduledExecution"))
        d->caps |= COSA_FMU_CAP_SCHEDULED;
}

/* A step size attribute: its value if it is a number > 0, else 0. */
static double attr_step(xmlNode *n, const char *name)
{
    char *v = n ? attr(n, name) : NULL, *end;
    double x = v ? strtod(v, &end) : 0.0;
    if (!v || end == v || *end != '\0' || !(x > 0.0) || !isfinite(x))
        x = 0.0;
    free(v);
    return x;
}

/* DefaultExperiment's startTime and stopTime (NaN where absent or bad). */
static void default_experiment(xmlNode *root, fmu_description *d)
{
    xmlNode *de = child(root, "DefaultExperiment");
    const char *names[2] = {"startTime", "stopTime"};
    double *dst[2] = {&d->start_time, &d->stop_time};
    for (int k = 0; k < 2; k++) {
        char *v = de ? attr(de, names[k]) : NULL, *end = NULL;
        *dst[k] = NAN;
        if (v) {
            const double x = strtod(v, &end);
            if (end != v && *end == '\0' && isfinite(x))
                *dst[k] = x;
        }
        free(v);
    }
}

/* Index (in d->vars) of the variable with value reference vr, or -1. */
static long by_vr(const fmu_description *d, unsigned long vr)
{
    for (size_t i = 0; i < d->nvar; i++)
        if (d->vars[i].vr == vr)
            return (long)i;
    return -1;
}

static int push(size_t **arr, size_t *n, size_t v)
{
    size_t *a = realloc(*arr, (*n + 1) * sizeof *a);
    if (!a)
        return -1;
    a[(*n)++] = v;
    *arr = a;
    return 0;
}

/* ModelStructure's state derivatives (pos: the 1-based ScalarVariable
 * index of every variable, FMI 2.0) into d->states and d->derivs; 0 or -1. */
static int model_structure(xmlNode *root, fmu_description *d, const unsigned long *pos,
                           char *err, size_t errsize)
{
    int rc = 0;
    size_t nder = 0;
    xmlNode *ms = child(root, "ModelStructure");
    xmlNode *outs = d->version == 2 ? child(ms, "Outputs") : ms;
    xmlNode *ders = d->version == 2 ? child(ms, "Derivatives") : ms;
    const char *out_tag = d->version == 3 ? "Output" : "Unknown";
    const char *der_tag = d->version == 3 ? "ContinuousStateDerivative" : "Unknown";
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        xmlNode *list = pass ? ders : outs;
        for (xmlNode *n = list ? list->children : NULL; n && rc == 0; n = n->next) {
            if (!is(n, pass ? der_tag : out_tag))
                continue;
            unsigned long ref;
            long v = -1;
            if (attr_uint(n, d->version == 3 ? "valueReference" : "index", &ref) == 0) {
                if (d->version == 3)
                    v = by_vr(d, ref);
                else
                    for (size_t j = 0; j < d->nvar; j++)
                        if (pos[j] == ref)
                            v = (long)j;
            }
            if (pass == 0)
                continue; /* outputs are taken from the causality below (outputs of
                             other types than Float64/Real are not cosa's) */
            if (v < 0) {
                snprintf(err, errsize, "ModelStructure: a derivative refers to no Float64/Real "
                         "variable");
                rc = -1;
                break;
            }
            if (d->vars[v].derivative_of < 0) {
                snprintf(err, errsize, "ModelStructure: '%.100s' is listed as a derivative but "
                         "has no derivative attribute", d->vars[v].name);
                rc = -1;
                break;
            }
            if (push(&d->states, &d->nstate, (size_t)d->vars[v].derivative_of) ||
                push(&d->derivs, &nder, (size_t)v)) {
                snprintf(err, errsize, "out of memory");
                rc = -1;
            }
        }
    }
    return rc;
}

/* The capabilities and step sizes of the CoSimulation element (and the
 * DefaultExperiment), FMI 2.0 and 3.0 spellings. */
static void cosimulation_attributes(xmlNode *root, xmlNode *cs, fmu_description *d)
{
    if (attr_true(cs, d->version == 3 ? "canGetAndSetFMUState" : "canGetAndSetFMUstate"))
        d->caps |= COSA_FMU_CAP_GET_SET_STATE;
    if (attr_true(cs, d->version == 3 ? "providesDirectionalDerivatives"
                                      : "providesDirectionalDerivative"))
        d->caps |= COSA_FMU_CAP_DIRECTIONAL;
    if (d->version == 2 && attr_true(cs, "canInterpolateInputs"))
        d->caps |= COSA_FMU_CAP_INTERPOLATE_INPUTS;
    if (d->version == 3 && attr_true(cs, "providesIntermediateUpdate"))
        d->caps |= COSA_FMU_CAP_INTERMEDIATE_UPDATE;
    if (attr_true(cs, "canHandleVariableCommunicationStepSize"))
        d->caps |= COSA_FMU_CAP_VARIABLE_STEP;
    default_experiment(root, d);
    d->fixed_step = attr_step(cs, "fixedInternalStepSize");
    d->default_step = attr_step(child(root, "DefaultExperiment"), "stepSize");
    unsigned long mod = 0;
    d->max_output_der = attr_uint(cs, "maxOutputDerivativeOrder", &mod) == 0 ? (int)mod : 0;
    if (d->version == 3)
        fmi3_attributes(root, cs, d);
}

/* The number of event indicators (Model Exchange): 3.0 the EventIndicator
 * elements of ModelStructure, 2.0 the root's numberOfEventIndicators. */
static void event_indicators(xmlNode *root, fmu_description *d)
{
    unsigned long n = 0;
    d->nevent = 0;
    if (d->version == 2) {
        if (attr_uint(root, "numberOfEventIndicators", &n) == 0 && n < 100000)
            d->nevent = (size_t)n;
        return;
    }
    xmlNode *ms = child(root, "ModelStructure");
    for (xmlNode *c = ms ? ms->children : NULL; c; c = c->next)
        if (is(c, "EventIndicator"))
            d->nevent++;
}

static int parse(xmlNode *root, fmu_description *d, unsigned flags, char *err, size_t errsize)
{
    if (!is(root, "fmiModelDescription")) {
        snprintf(err, errsize, "modelDescription.xml: the root element is not "
                 "fmiModelDescription");
        return -1;
    }
    char *ver = attr(root, "fmiVersion");
    d->version = ver && strncmp(ver, "3.", 2) == 0 ? 3 : ver && strcmp(ver, "2.0") == 0 ? 2 : 0;
    if (!d->version) {
        snprintf(err, errsize, "fmiVersion '%.40s' is not supported (2.0 or 3.0)",
                 ver ? ver : "(none)");
        free(ver);
        return -1;
    }
    free(ver);
    d->model_name = attr(root, "modelName");
    d->token = attr(root, d->version == 3 ? "instantiationToken" : "guid");
    /* co-simulation where the FMU offers it, else model exchange (cosa
     * integrates the derivatives: unit_fmu_me.c) */
    xmlNode *cs = d->iface == COSA_FMU_IFACE_ME ? NULL : child(root, "CoSimulation");
    if (!cs && d->iface != COSA_FMU_IFACE_CS && (cs = child(root, "ModelExchange")) != NULL)
        d->caps |= COSA_FMU_CAP_MODEL_EXCHANGE;
    if (!cs && d->iface == COSA_FMU_IFACE_ME) {
        snprintf(err, errsize, "model exchange asked for, but the FMU has no ModelExchange "
                               "element");
        return -1;
    }
    if (!cs) {
        no_cosimulation(root, d->version, err, errsize);
        return -1;
    }
    d->identifier = attr(cs, "modelIdentifier");
    if (!d->identifier || !d->identifier[0] || strchr(d->identifier, '/')) {
        snprintf(err, errsize, "%s: missing or bad modelIdentifier",
                 (d->caps & COSA_FMU_CAP_MODEL_EXCHANGE) ? "ModelExchange" : "CoSimulation");
        return -1;
    }
    cosimulation_attributes(root, cs, d);

    xmlNode *mv = child(root, "ModelVariables");
    if (!mv) {
        snprintf(err, errsize, "modelDescription.xml: no ModelVariables");
        return -1;
    }
    /* raw derivative attributes, and for 2.0 the ScalarVariable index of
     * every Real (1-based over all ScalarVariables) */
    unsigned long *raw = NULL, *pos = NULL;
    size_t k2 = 0;
    int rc = 0;
    for (xmlNode *n = mv->children; n && rc == 0; n = n->next) {
        xmlNode *typed = NULL;
        if (d->version == 3 && is(n, "Float64") && child(n, "Dimension")) {
            /* an array: fine as a parameter or internal variable cosa does
             * not touch, not as an input, output or state */
            char *c = attr(n, "causality"), *nm = attr(n, "name");
            const int io = c && (!strcmp(c, "input") || !strcmp(c, "output"));
            const int der = xmlHasProp(n, (const xmlChar *)"derivative") != NULL;
            if (io || der)
                snprintf(err, errsize, "array variable '%.100s' (%s): FMI 3.0 arrays are not "
                         "supported", nm ? nm : "?", io ? c : "a state derivative");
            free(c);
            free(nm);
            if (io || der) {
                rc = -1;
                break;
            }
            if (add_other(d, n, n, 1) != 0) {
                snprintf(err, errsize, "out of memory");
                rc = -1;
            }
            continue;
        }
        if (d->version == 3 && is(n, "Float64"))
            typed = n;
        else if (d->version == 2 && is(n, "ScalarVariable")) {
            k2++;
            typed = child(n, "Real");
        }
        if (!typed) {
            /* another type: listed by fmu-info, otherwise not cosa's */
            xmlNode *ty = d->version == 3 ? n : NULL;
            for (xmlNode *c = is(n, "ScalarVariable") ? n->children : NULL; c && !ty; c = c->next)
                if (c->type == XML_ELEMENT_NODE)
                    ty = c;
            if (ty && ty->type == XML_ELEMENT_NODE &&
                add_other(d, n, ty, d->version == 3 && child(n, "Dimension") != NULL) != 0) {
                snprintf(err, errsize, "out of memory");
                rc = -1;
            }
            continue;
        }
        unsigned long dv;
        if ((rc = add_var(d, n, typed, &dv, err, errsize)) != 0)
            break;
        unsigned long *r2 = realloc(raw, d->nvar * sizeof *r2), *p2 = NULL;
        if (r2) {
            raw = r2;
            p2 = realloc(pos, d->nvar * sizeof *p2);
        }
        if (!r2 || !p2) {
            snprintf(err, errsize, "out of memory");
            rc = -1;
            break;
        }
        pos = p2;
        raw[d->nvar - 1] = dv;
        pos[d->nvar - 1] = k2;
    }
    /* derivative -> the index of the state it differentiates */
    for (size_t i = 0; rc == 0 && i < d->nvar; i++) {
        if (!raw[i])
            continue;
        long s = -1;
        if (d->version == 3)
            s = by_vr(d, raw[i]);
        else
            for (size_t j = 0; j < d->nvar; j++)
                if (pos[j] == raw[i])
                    s = (long)j;
        if (s < 0) {
            snprintf(err, errsize, "modelDescription.xml: '%.100s' is the derivative of an "
                     "unknown variable (%lu)", d->vars[i].name, raw[i]);
            rc = -1;
        }
        d->vars[i].derivative_of = s;
    }
    if (rc == 0)
        rc = model_structure(root, d, pos, err, errsize);
    free(raw);
    free(pos);
    for (size_t i = 0; rc == 0 && i < d->nvar; i++) {
        const cosa_fmu_var *v = &d->vars[i];
        /* discrete Real inputs/outputs of FMI 2.0 on request (no clocks there) */
        const int discrete = (flags & COSA_FMU_OPEN_DISCRETE_IO) && d->version == 2 &&
                             v->variability == COSA_FMU_DISCRETE;
        if (v->variability != COSA_FMU_CONTINUOUS && !discrete)
            continue;
        if ((v->causality == COSA_FMU_INPUT && push(&d->inputs, &d->nin, i)) ||
            (v->causality == COSA_FMU_OUTPUT && push(&d->outputs, &d->nout, i))) {
            snprintf(err, errsize, "out of memory");
            rc = -1;
        }
    }
    if (rc == 0)
        event_indicators(root, d);
    return rc;
}

int fmu_description_read(const char *path, unsigned flags, fmu_description *d, char *err,
                         size_t errsize)
{
    return fmu_description_read_as(path, COSA_FMU_IFACE_AUTO, flags, d, err, errsize);
}

int fmu_description_read_as(const char *path, int iface, unsigned flags, fmu_description *d,
                            char *err, size_t errsize)
{
    memset(d, 0, sizeof *d);
    d->iface = iface;
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR |
                                              XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        snprintf(err, errsize, "modelDescription.xml is not well-formed XML");
        if (e && e->message) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s", e->message);
            msg[strcspn(msg, "\n")] = '\0';
            snprintf(err, errsize, "modelDescription.xml is not well-formed XML (line %d: %s)",
                     e->line, msg);
        }
        xmlResetLastError();
        return -1;
    }
    xmlNode *root = xmlDocGetRootElement(doc);
    int rc = parse(root, d, flags, err, errsize);
    if (rc == 0)
        rc = fmu_clocks_read(child(root, "ModelVariables"), d, err, errsize);
    xmlFreeDoc(doc);
    if (rc != 0)
        fmu_description_free(d);
    return rc;
}
