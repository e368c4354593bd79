// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: the digest of a BTF base, and whether the module's fits the
 * running kernel's (btfbase.h).
 */
#include <string.h>

#include "btfbase.h"

static uint32_t cksum_byte(uint32_t crc, unsigned char c)
{
	int i;

	crc ^= (uint32_t)c << 24;
	for (i = 0; i < 8; i++)
		crc = crc & 0x80000000u ? (crc << 1) ^ 0x04c11db7u : crc << 1;
	return crc;
}

int64_t btf_cksum(FILE *f)
{
	unsigned char buf[65536];
	uint64_t total = 0;
	uint32_t crc = 0;
	size_t n, i;

	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		for (i = 0; i < n; i++)
			crc = cksum_byte(crc, buf[i]);
		total += n;
	}
	if (ferror(f))
		return -1;
	for (; total; total >>= 8)
		crc = cksum_byte(crc, total & 0xff);
	return (uint32_t)~crc;
}

int btf_digest(const char *path, char out[9])
{
	FILE *f = fopen(path, "rb");
	int64_t c;

	if (!f)
		return -1;
	c = btf_cksum(f);
	fclose(f);
	if (c < 0)
		return -1;
	snprintf(out, 9, "%08x", (unsigned int)c);
	return 0;
}

const char *btf_base_mismatch(const char *built, const char *running,
			      char *buf, size_t len)
{
	if (!strcmp(built, "none")) {
		snprintf(buf, len, "the module was built without BTF, which BPF programs need to call it: rebuild it with this kernel's BTF (dkms, with pahole and /sys/kernel/btf/vmlinux or /boot/vmlinuz-$(uname -r))");
		return buf;
	}
	if (!strcmp(built, running))
		return NULL;
	snprintf(buf, len, "the module was built against another kernel's BTF (base %s, this kernel's %s): rebuild it (dkms)",
		 built, running);
	return buf;
}
