// SPDX-License-Identifier: GPL-2.0
/* Rows of distinct-count sketches: see sketchrow.h. */
#include <string.h>
#include <time.h>

#include "json_str.h"
#include "sketchrow.h"

void rfc3339_utc(uint64_t t, char *out, size_t len)
{
	time_t s = (time_t)(t / 1000000000u);
	struct tm tm;
	char day[32];

	gmtime_r(&s, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%06uZ", day,
		 (unsigned int)(t % 1000000000u / 1000));
}

static void put_hex(FILE *f, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	fputs("\\x", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

/* A CSV field: quoted if it holds a comma, a quote or a line break. */
static void put_csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void sketch_row_csv(FILE *f, const struct sketch_row *r)
{
	char start[48], end[48];

	rfc3339_utc(r->start_ns, start, sizeof(start));
	rfc3339_utc(r->end_ns, end, sizeof(end));
	put_csv_field(f, r->host);
	fprintf(f, ",%016llx,%s,%s,", (unsigned long long)r->fingerprint,
		start, end);
	put_hex(f, r->src, r->src_len);
	fputc(',', f);
	put_hex(f, r->dst, r->dst_len);
	fputc('\n', f);
}

void sketch_row_json(const struct sketch_row *r)
{
	char start[48], end[48];

	rfc3339_utc(r->start_ns, start, sizeof(start));
	rfc3339_utc(r->end_ns, end, sizeof(end));
	fputs("{\"host\":", stdout);
	json_str(r->host);
	printf(",\"fingerprint\":\"%016llx\",\"start\":\"%s\",\"end\":\"%s\",\"src\":\"\\",
	       (unsigned long long)r->fingerprint, start, end);
	put_hex(stdout, r->src, r->src_len);
	fputs("\",\"dst\":\"\\", stdout);
	put_hex(stdout, r->dst, r->dst_len);
	fputs("\"}", stdout);
}
