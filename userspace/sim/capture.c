// SPDX-License-Identifier: GPL-2.0
/* Capture files through libwiretap: see capture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <wiretap/wtap.h>
#include <wsutil/buffer.h>
#include <wsutil/wslog.h>

#include "capture.h"

struct cap_out {
	wtap_dumper *d;
	wtap_dump_params params;
	char *path;
	bool idbs;		/* its format holds interface blocks */
	unsigned int nidb;	/* interface blocks written */
};

struct capture {
	wtap *w;
	wtap_rec rec;
	Buffer buf;
	bool have_rec;		/* rec holds the record read last */
	GPtrArray *idbs;	/* every interface block seen, in order */
	struct cap_out out[CAP_MAX_OUTPUTS];
	unsigned int nout;
	struct cap_end end;
};

static bool wtap_ready;

static void cap_lib_init(void)
{
	if (wtap_ready)
		return;
	/* its log writes debug lines to stderr unless it is set up */
	ws_log_init("dedup-sim", NULL);
	ws_log_set_level(LOG_LEVEL_WARNING);
	wtap_init(FALSE);
	wtap_ready = true;
}

static void cap_msg(char *err, size_t errlen, const char *what, int e,
		    gchar *info)
{
	snprintf(err, errlen, "%s: %s%s%s", what, wtap_strerror(e),
		 info ? " (" : "", info ? info : "");
	if (info)
		snprintf(err + strlen(err), errlen - strlen(err), ")");
	g_free(info);
}

struct capture *cap_open(const char *path, char *err, size_t errlen)
{
	struct capture *c;
	gchar *info = NULL;
	int e = 0;

	cap_lib_init();
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->w = wtap_open_offline(path, WTAP_TYPE_AUTO, &e, &info, FALSE);
	if (!c->w) {
		cap_msg(err, errlen, path, e, info);
		free(c);
		return NULL;
	}
	c->idbs = g_ptr_array_new();
	wtap_rec_init(&c->rec);
	ws_buffer_init(&c->buf, 1514);
	return c;
}

/* New interface blocks: remember them, and give them to the outputs. */
static int cap_take_idbs(struct capture *c)
{
	wtap_block_t idb;
	unsigned int i;

	while ((idb = wtap_get_next_interface_description(c->w)))
		g_ptr_array_add(c->idbs, idb);
	for (i = 0; i < c->nout; i++) {
		struct cap_out *o = &c->out[i];

		while (o->idbs && o->nidb < c->idbs->len) {
			gchar *info = NULL;
			int e = 0;

			if (!wtap_dump_add_idb(o->d, g_ptr_array_index(c->idbs,
								    o->nidb),
					       &e, &info)) {
				cap_msg(c->end.msg, sizeof(c->end.msg), o->path,
					e, info);
				return -1;
			}
			o->nidb++;
		}
	}
	return 0;
}

static enum link_type cap_link(int encap)
{
	switch (encap) {
	case WTAP_ENCAP_ETHERNET:
		return LINK_ETHERNET;
	case WTAP_ENCAP_SLL:
		return LINK_SLL;
	case WTAP_ENCAP_SLL2:
		return LINK_SLL2;
	case WTAP_ENCAP_RAW_IP:
		return LINK_RAW;
	case WTAP_ENCAP_RAW_IP4:
		return LINK_IPV4;
	case WTAP_ENCAP_RAW_IP6:
		return LINK_IPV6;
	case WTAP_ENCAP_NULL:
		return LINK_NULL;
	case WTAP_ENCAP_LOOP:
		return LINK_LOOP;
	default:
		return LINK_UNKNOWN;
	}
}

int cap_next(struct capture *c, struct cap_frame *f)
{
	gchar *info = NULL;
	gint64 off = -1;
	int e = 0;

	if (c->have_rec)
		wtap_rec_reset(&c->rec);
	c->have_rec = false;
	if (!wtap_read(c->w, &c->rec, &c->buf, &e, &info, &off)) {
		if (!e)
			return 0;
		/*
		 * pcap's and pcapng's readers set the offset of the record
		 * before they read it: the one that failed. Other readers
		 * may not: then where the reader stopped.
		 */
		c->end.offset = off >= 0 ? (uint64_t)off :
				(uint64_t)wtap_read_so_far(c->w);
		c->end.cut = e == WTAP_ERR_SHORT_READ;
		snprintf(c->end.msg, sizeof(c->end.msg), "%s%s%s",
			 wtap_strerror(e), info ? ": " : "",
			 info ? info : "");
		g_free(info);
		return -1;
	}
	c->have_rec = true;
	if (cap_take_idbs(c))
		return -1;
	memset(f, 0, sizeof(*f));
	f->t_ns = (uint64_t)c->rec.ts.secs * 1000000000ULL +
		  (uint64_t)c->rec.ts.nsecs;
	if (c->rec.rec_type != REC_TYPE_PACKET)
		return 1;
	f->packet = true;
	f->data = ws_buffer_start_ptr(&c->buf);
	f->caplen = c->rec.rec_header.packet_header.caplen;
	f->origlen = c->rec.rec_header.packet_header.len;
	if (f->origlen < f->caplen)	/* some formats leave it 0 */
		f->origlen = f->caplen;
	f->encap = c->rec.rec_header.packet_header.pkt_encap;
	f->link = cap_link(f->encap);
	return 1;
}

const struct cap_end *cap_ended(const struct capture *c)
{
	return &c->end;
}

const char *cap_format(const struct capture *c)
{
	return wtap_file_type_subtype_name(wtap_file_type_subtype(c->w));
}

const char *cap_encap_name(int encap)
{
	const char *n = wtap_encap_name(encap);

	return n ? n : "?";
}

/*
 * wtap_dump_params_init_no_idbs() gives the caller the input's interface
 * list (wtap_file_get_idb_info(): the caller's to g_free()), which
 * wtap_dump_params_cleanup() leaves alone.
 */
static void cap_params_free(wtap_dump_params *p)
{
	g_free(p->idb_inf);
	p->idb_inf = NULL;
	wtap_dump_params_cleanup(p);
}

int cap_add_output(struct capture *c, const char *name, int fd,
		   bool *fallback, char *err, size_t errlen)
{
	struct cap_out *o = &c->out[c->nout];
	int ft = wtap_file_type_subtype(c->w);
	gchar *info = NULL;
	int e = 0, dfd;

	if (c->nout == CAP_MAX_OUTPUTS) {
		snprintf(err, errlen, "too many outputs");
		return -1;
	}
	*fallback = false;
	wtap_dump_params_init_no_idbs(&o->params, c->w);
	if (!wtap_dump_can_open(ft) ||
	    (o->params.encap != WTAP_ENCAP_PER_PACKET &&
	     !wtap_dump_can_write_encap(ft, o->params.encap))) {
		ft = wtap_pcapng_file_type_subtype();
		*fallback = true;
	}
	/*
	 * The dumper gets a descriptor of its own, closed with it (as
	 * wtap_dump_open_stdout() does with standard output's); when it
	 * fails it may have closed it already.
	 */
	dfd = dup(fd);
	o->d = dfd < 0 ? NULL :
	       wtap_dump_fdopen(dfd, ft, WTAP_UNCOMPRESSED, &o->params, &e,
				&info);
	if (!o->d) {
		if (dfd < 0)
			snprintf(err, errlen, "%s: %s", name, strerror(errno));
		else
			cap_msg(err, errlen, name, e, info);
		if (dfd >= 0)
			close(dfd);
		cap_params_free(&o->params);
		return -1;
	}
	o->path = strdup(name);
	o->idbs = wtap_file_type_subtype_supports_block(ft,
				WTAP_BLOCK_IF_ID_AND_INFO) != BLOCK_NOT_SUPPORTED;
	o->nidb = 0;
	c->nout++;
	if (cap_take_idbs(c)) {
		snprintf(err, errlen, "%s", c->end.msg);
		return -1;
	}
	return (int)c->nout - 1;
}

int cap_write(struct capture *c, int i, char *err, size_t errlen)
{
	struct cap_out *o = &c->out[i];
	gchar *info = NULL;
	int e = 0;

	if (!wtap_dump(o->d, &c->rec, ws_buffer_start_ptr(&c->buf), &e,
		       &info)) {
		cap_msg(err, errlen, o->path, e, info);
		return -1;
	}
	return 0;
}

int cap_close_output(struct capture *c, int i, char *err, size_t errlen)
{
	struct cap_out *o = &c->out[i];
	gchar *info = NULL;
	int e = 0, ret = 0;

	if (!o->d)
		return 0;
	/* what it buffered is written now: a full disk may say so here */
	if (!wtap_dump_close(o->d, NULL, &e, &info)) {
		if (err)
			cap_msg(err, errlen, o->path, e, info);
		else
			g_free(info);
		ret = -1;
	}
	o->d = NULL;
	cap_params_free(&o->params);
	free(o->path);
	o->path = NULL;
	return ret;
}

void cap_close(struct capture *c)
{
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < c->nout; i++)
		cap_close_output(c, (int)i, NULL, 0);
	wtap_rec_cleanup(&c->rec);
	ws_buffer_free(&c->buf);
	g_ptr_array_free(c->idbs, TRUE);
	wtap_close(c->w);
	free(c);
}
