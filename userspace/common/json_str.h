/* SPDX-License-Identifier: GPL-2.0 */
/* A string as JSON, for dedupctl and the simulator. */
#ifndef PD_JSON_STR_H
#define PD_JSON_STR_H

#include <stdio.h>

/* s as a JSON string: quoted, with '"', '\\' and control bytes escaped. */
static inline void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

#endif /* PD_JSON_STR_H */
