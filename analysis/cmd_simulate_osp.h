/* cmd_simulate_osp.h -- `cosa simulate` with libcosim's algorithms on an OSP
 * system structure (cmd_simulate_osp.c, doc/osp.md). */
#ifndef COSA_CMD_SIMULATE_OSP_H
#define COSA_CMD_SIMULATE_OSP_H

#include "cli.h"

/* The run of cs's model (an OSP file) with algorithm "ecco" or "fixedStep"
 * (NULL: the file's Algorithm) over tend (NaN: EndTime or the model's
 * horizon); output/name: -o DIR and --name (NULL: none, default); fmu_log:
 * --fmu-log.  A CLI_* exit code. */
int cmd_simulate_osp(const char *cmd, cli_case *cs, const char *algorithm, double tend,
                     const char *output, const char *name, int fmu_log);

#endif
