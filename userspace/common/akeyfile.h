/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source analytics' key from a file a fleet shares (core/addrhash.h):
 * exactly PD_AKEY_BYTES (40) bytes, as "head -c 40 /dev/urandom" makes.
 * Every host that hashes addresses with one key writes sketches that
 * merge; the key's fingerprint tells keys apart.
 */
#ifndef PD_AKEYFILE_H
#define PD_AKEYFILE_H

#include <stddef.h>

#include "../../module/core/addrhash.h"

/*
 * Read the key in path into bytes (PD_AKEY_BYTES); 0, or -1 with a
 * message in err.
 */
int akey_file_read(const char *path, u8 *bytes, char *err, size_t errlen);

#endif /* PD_AKEYFILE_H */
