// SPDX-License-Identifier: GPL-2.0
/* A capture's distinct-count sketches as CSV rows: see sketches.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/hllpg.h"
#include "../common/sketchrow.h"
#include "sketches.h"

struct sketch_out {
	FILE *f;
	char *host;
	struct pd_akey key;
	uint64_t fp;		/* the key's fingerprint */
	uint64_t every;		/* ns per interval */
	uint64_t cur;		/* the current interval + 1; 0: none yet */
	uint64_t rows;
	struct pd_hll sk[2];	/* sources, destinations */
	uint8_t buf[2][PD_HLLPG_MAX];
};

struct sketch_out *sketch_open(FILE *f, const char *host,
			       const struct pd_akey *key, uint64_t every_ns)
{
	struct sketch_out *so = calloc(1, sizeof(*so));

	if (!so)
		return NULL;
	so->host = strdup(host);
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

static void sketch_row(struct sketch_out *so)
{
	uint32_t n = pd_hllpg_encode(&so->sk[0], so->buf[0]);
	struct sketch_row r = {
		.host = so->host, .fingerprint = so->fp,
		.start_ns = (so->cur - 1) * so->every,
		.end_ns = so->cur * so->every,
		.src = so->buf[0], .src_len = n,
		.dst = so->buf[1],
		.dst_len = pd_hllpg_encode(&so->sk[1], so->buf[1]),
	};

	sketch_row_csv(so->f, &r);
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
