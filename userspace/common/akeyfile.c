// SPDX-License-Identifier: GPL-2.0
/* The source analytics' key from a file: see akeyfile.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "akeyfile.h"

int akey_file_read(const char *path, u8 *bytes, char *err, size_t errlen)
{
	u8 buf[PD_AKEY_BYTES + 1];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	if (n != PD_AKEY_BYTES) {
		snprintf(err, errlen,
			 "%s: %s%zu bytes; a key is %d random bytes (head -c %d /dev/urandom > FILE)",
			 path, n > PD_AKEY_BYTES ? "more than " : "",
			 n > PD_AKEY_BYTES ? (size_t)PD_AKEY_BYTES : n,
			 PD_AKEY_BYTES, PD_AKEY_BYTES);
		return -1;
	}
	memcpy(bytes, buf, PD_AKEY_BYTES);
	return 0;
}
