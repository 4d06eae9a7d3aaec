/* input_builder.c -- the input builder of a master's options (the builders
 * themselves: input_history.c, input_taylor.c, input_given.c). */
#include "td/input_builder.h"

const cosa_input_builder_type *cosa_input_builder_of(const cosa_master_opts *opt)
{
    if (!opt)
        return &cosa_input_history;
    switch (opt->extrapolation) {
    case COSA_EXTRAP_HISTORY:
        return opt->held ? &cosa_input_held : &cosa_input_history;
    case COSA_EXTRAP_TAYLOR:
        return &cosa_input_taylor;
    case COSA_EXTRAP_GIVEN:
        return &cosa_input_given;
    }
    return NULL;
}
