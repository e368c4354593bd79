// SPDX-License-Identifier: GPL-2.0
/* A capture's distinct-count sketches as CSV rows: see sketches.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../module/core/hllpg.h"
#include "sketches.h"

struct sketch_out {
	FILE *f;
	char *host;		/* CSV-quoted */
	struct pd_akey key;
	uint64_t fp;		/* the key's fingerprint */
	uint64_t every;		/* ns per interval */
	uint64_t cur;		/* the current interval + 1; 0: none yet */
	uint64_t rows;
	struct pd_hll sk[2];	/* sources, destinations */
	uint8_t buf[PD_HLLPG_MAX];
};

/* A CSV field: quoted if it holds a comma, a quote or a line break. */
static char *csv_field(const char *s)
{
	size_t n = strlen(s), i, o = 0;
	char *q;

	if (!strpbrk(s, ",\"\r\n"))
		return strdup(s);
	q = malloc(2 * n + 3);
	if (!q)
		return NULL;
	q[o++] = '"';
	for (i = 0; i < n; i++) {
		if (s[i] == '"')
			q[o++] = '"';
		q[o++] = s[i];
	}
	q[o++] = '"';
	q[o] = 0;
	return q;
}

struct sketch_out *sketch_open(FILE *f, const char *host,
			       const struct pd_akey *key, uint64_t every_ns)
{
	struct sketch_out *so = calloc(1, sizeof(*so));

	if (!so)
		return NULL;
	so->host = csv_field(host);
	if (!so->host) {
		free(so);
		return NULL;
	}
	so->f = f;
	so->key = *key;
	so->fp = pd_akey_fingerprint(key);
	so->every = every_ns;
	return so;
}

/* t (ns since the epoch) in RFC 3339 UTC, to the microsecond. */
static void rfc3339(uint64_t t, char *out, size_t len)
{
	time_t s = (time_t)(t / 1000000000u);
	struct tm tm;
	char day[32];

	gmtime_r(&s, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, len, "%s.%06uZ", day, (unsigned int)(t % 1000000000u / 1000));
}

static void put_hex(FILE *f, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	fputs("\\x", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static void sketch_row(struct sketch_out *so)
{
	char start[48], end[48];
	uint64_t i = so->cur - 1;

	rfc3339(i * so->every, start, sizeof(start));
	rfc3339((i + 1) * so->every, end, sizeof(end));
	fprintf(so->f, "%s,%016llx,%s,%s,", so->host,
		(unsigned long long)so->fp, start, end);
	put_hex(so->f, so->buf, pd_hllpg_encode(&so->sk[0], so->buf));
	fputc(',', so->f);
	put_hex(so->f, so->buf, pd_hllpg_encode(&so->sk[1], so->buf));
	fputc('\n', so->f);
	so->rows++;
	pd_hll_clear(&so->sk[0]);
	pd_hll_clear(&so->sk[1]);
}

int sketch_add(struct sketch_out *so, uint64_t t_ns, const uint8_t *src,
	       const uint8_t *dst, uint8_t len)
{
	uint64_t i = t_ns / so->every + 1;

	if (i > so->cur) {
		if (so->cur)
			sketch_row(so);
		so->cur = i;
	}
	pd_hll_add(&so->sk[0], pd_addr_hash(&so->key, src, len));
	pd_hll_add(&so->sk[1], pd_addr_hash(&so->key, dst, len));
	return ferror(so->f) ? -1 : 0;
}

uint64_t sketch_rows(const struct sketch_out *so)
{
	return so->rows;
}

uint64_t sketch_fingerprint(const struct sketch_out *so)
{
	return so->fp;
}

int sketch_close(struct sketch_out *so)
{
	int bad;

	if (so->cur)
		sketch_row(so);
	bad = fflush(so->f) != 0 || ferror(so->f);
	free(so->host);
	free(so);
	return bad ? -1 : 0;
}
