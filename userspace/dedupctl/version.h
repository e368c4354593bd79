/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dedupctl's version: the module's (MODULE_VERSION), as the packages'
 * (tests/packaging/deb-check.sh checks that they agree).
 */
#ifndef DEDUPCTL_VERSION_H
#define DEDUPCTL_VERSION_H

#define DEDUPCTL_VERSION "0.9.0"

#endif /* DEDUPCTL_VERSION_H */
