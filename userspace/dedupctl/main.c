// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl's entry point. The commands are in dedupctl.c, show.c, set.c,
 * save.c and sources.c; the fuzzer links them with its own
 * dedupctl_exit().
 */
#include <stdlib.h>

#include "dedupctl.h"

void dedupctl_exit(int status)
{
	exit(status);
}

int main(int argc, char **argv)
{
	return dedupctl_main(argc, argv);
}
