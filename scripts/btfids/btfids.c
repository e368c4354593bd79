// SPDX-License-Identifier: GPL-2.0
/*
 * btfids: fills an object's .BTF_ids section from its BTF, as the kernel's
 * resolve_btfids does at build time, for what a module uses: Debian ships
 * no resolve_btfids, and DKMS builds pktdedup.ko where no kernel tree is.
 *
 *   btfids [-b BASE] OBJECT
 *
 * OBJECT's BTF (its .BTF section, split against BASE: raw BTF or an ELF
 * file with a .BTF section) gives the ids. The symbols of .BTF_ids say
 * where each goes:
 *
 *   __BTF_ID__<kind>__<name>__<n>   kind func, struct, union or typedef:
 *                                   the id of the type <name> of that kind
 *   __BTF_ID__set__<set>            the set's count (from the symbol's
 *                                   size), then its ids, sorted
 *   __BTF_ID__set8__<set>           the same, 8 bytes an entry (id, flags),
 *                                   the count in the first 4 of its 8
 *
 * A name no type has gets id 0 and a warning, as from resolve_btfids. The
 * section is rewritten in place, nothing else in the file changes.
 * Exit status: 0 done (or nothing to do), 1 error, 2 usage.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define ID_PREFIX "__BTF_ID__"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* libelf's types, named by what its functions return (no CamelCase) */
#define elf_t typeof(*elf_begin(0, ELF_C_NULL, NULL))
#define elf_scn_t typeof(*elf_nextscn(NULL, NULL))
#define elf_data_t typeof(*elf_getdata(NULL, NULL))
#define elf_shdr_t typeof(*gelf_getshdr(NULL, NULL))
#define elf_sym_t typeof(*gelf_getsym(NULL, 0, NULL))
#define elf_ehdr_t typeof(*gelf_getehdr(NULL, NULL))

struct ids {
	const char *path;
	unsigned char *buf;	/* the section's bytes, as in the file */
	size_t size;
	__u64 addr;		/* the section's address (0 in a .ko) */
	bool msb;		/* big-endian file */
	struct btf *btf;
	unsigned int unresolved;
};

/* a set to sort once every id is in place */
struct set {
	size_t off;
	__u32 cnt;
	size_t entry;		/* 4 (set) or 8 (set8) */
};

static bool msb_file;		/* for the sort's comparison */

static __u32 get32(const unsigned char *p, bool msb)
{
	__u32 v;

	memcpy(&v, p, sizeof(v));
	return msb ? be32toh(v) : le32toh(v);
}

static void put32(unsigned char *p, __u32 v, bool msb)
{
	v = msb ? htobe32(v) : htole32(v);
	memcpy(p, &v, sizeof(v));
}

static int cmp_entry(const void *a, const void *b)
{
	__u32 x = get32(a, msb_file), y = get32(b, msb_file);

	return x < y ? -1 : x > y;
}

static int put_at(struct ids *s, __u64 value, size_t len, __u32 v,
		  const char *sym)
{
	__u64 off = value - s->addr;

	if (value < s->addr || off > s->size || s->size - off < len) {
		fprintf(stderr, "btfids: %s: %s lies outside .BTF_ids\n",
			s->path, sym);
		return -1;
	}
	put32(s->buf + off, v, s->msb);
	return 0;
}

/* "<name>__<n>" without "__<n>"; NULL if it has no such suffix */
static char *type_name(const char *rest)
{
	char *name = strdup(rest);
	char *p;

	if (!name)
		return NULL;
	p = strrchr(name, '_');
	if (!p || p - name < 2 || p[-1] != '_' || !p[1]) {
		free(name);
		return NULL;
	}
	p[-1] = '\0';
	return name;
}

static const struct {
	const char *kind;
	int btf_kind;
} kinds[] = {
	{ "func", BTF_KIND_FUNC },
	{ "struct", BTF_KIND_STRUCT },
	{ "union", BTF_KIND_UNION },
	{ "typedef", BTF_KIND_TYPEDEF },
};

/* one symbol of .BTF_ids: 1 a set (in *set), 0 an id, -1 an error */
static int one_symbol(struct ids *s, const char *sym, const elf_sym_t *st,
		      struct set *set)
{
	const char *p = sym + strlen(ID_PREFIX);
	size_t entry = 0, k, len;
	char *name;
	int id;

	if (!strncmp(p, "set8__", 6))
		entry = 8;
	else if (!strncmp(p, "set__", 5))
		entry = 4;
	if (entry) {
		if (st->st_size < entry) {
			fprintf(stderr, "btfids: %s: %s: size %llu\n", s->path,
				sym, (unsigned long long)st->st_size);
			return -1;
		}
		set->off = st->st_value - s->addr;
		set->cnt = st->st_size / entry - 1;
		set->entry = entry;
		if (put_at(s, st->st_value, st->st_size, set->cnt, sym))
			return -1;
		return 1;
	}
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		len = strlen(kinds[k].kind);
		if (!strncmp(p, kinds[k].kind, len) && !strncmp(p + len, "__", 2))
			break;
	}
	if (k == ARRAY_SIZE(kinds)) {
		fprintf(stderr, "btfids: %s: %s: unknown kind\n", s->path, sym);
		return -1;
	}
	name = type_name(p + len + 2);
	if (!name) {
		fprintf(stderr, "btfids: %s: %s: no __<n> suffix\n", s->path, sym);
		return -1;
	}
	id = btf__find_by_name_kind(s->btf, name, kinds[k].btf_kind);
	if (id <= 0) {
		fprintf(stderr, "btfids: %s: warning: no %s %s in its BTF\n",
			s->path, kinds[k].kind, name);
		s->unresolved++;
		id = 0;
	}
	free(name);
	return put_at(s, st->st_value, 4, id, sym);
}

static int fill(struct ids *s, elf_t *elf, size_t shndx, elf_scn_t *symscn)
{
	struct set *sets = NULL, *more;
	size_t nsets = 0, i, n;
	elf_data_t *syms;
	elf_shdr_t sh;
	elf_sym_t st;
	const char *sym;
	int err = -1, r;

	if (!gelf_getshdr(symscn, &sh))
		return -1;
	syms = elf_getdata(symscn, NULL);
	if (!syms || !sh.sh_entsize)
		return -1;
	n = sh.sh_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(syms, i, &st))
			goto out;
		if (st.st_shndx != shndx)
			continue;
		sym = elf_strptr(elf, sh.sh_link, st.st_name);
		if (!sym || strncmp(sym, ID_PREFIX, strlen(ID_PREFIX)))
			continue;
		more = realloc(sets, (nsets + 1) * sizeof(*sets));
		if (!more)
			goto out;
		sets = more;
		r = one_symbol(s, sym, &st, &sets[nsets]);
		if (r < 0)
			goto out;
		nsets += r;
	}
	/* each set's entries by id, once all are in place */
	msb_file = s->msb;
	for (i = 0; i < nsets; i++)
		qsort(s->buf + sets[i].off + sets[i].entry, sets[i].cnt,
		      sets[i].entry, cmp_entry);
	err = 0;
out:
	free(sets);
	return err;
}

static int run(struct ids *s, const char *base_path)
{
	elf_scn_t *scn = NULL, *ids = NULL, *symscn = NULL;
	struct btf *base = NULL;
	size_t strndx;
	elf_shdr_t sh, idsh;
	elf_ehdr_t eh;
	elf_data_t *data;
	const char *name;
	int fd, err = -1;
	elf_t *elf;

	fd = open(s->path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "btfids: %s: %s\n", s->path, strerror(errno));
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &strndx)) {
		fprintf(stderr, "btfids: %s: %s\n", s->path, elf_errmsg(-1));
		goto out;
	}
	s->msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			goto out;
		name = elf_strptr(elf, strndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB)
			symscn = scn;
		else if (name && !strcmp(name, ".BTF_ids"))
			ids = scn;
	}
	if (!ids || !symscn) {
		err = 0;	/* nothing to fill */
		goto out;
	}
	if (!gelf_getshdr(ids, &idsh) || idsh.sh_type == SHT_NOBITS)
		goto out;
	data = elf_rawdata(ids, NULL);
	if (!data || data->d_size != idsh.sh_size)
		goto out;
	s->size = data->d_size;
	s->addr = idsh.sh_addr;
	s->buf = malloc(s->size);
	if (!s->buf)
		goto out;
	memcpy(s->buf, data->d_buf, s->size);

	if (base_path) {
		base = btf__parse(base_path, NULL);
		if (!base) {
			fprintf(stderr, "btfids: base %s: %s\n", base_path,
				strerror(errno));
			goto out;
		}
	}
	s->btf = btf__parse_split(s->path, base);
	if (!s->btf) {
		fprintf(stderr, "btfids: BTF of %s: %s\n", s->path, strerror(errno));
		goto out;
	}
	if (fill(s, elf, elf_ndxscn(ids), symscn))
		goto out;
	if (pwrite(fd, s->buf, s->size, idsh.sh_offset) != (ssize_t)s->size) {
		fprintf(stderr, "btfids: %s: write: %s\n", s->path, strerror(errno));
		goto out;
	}
	err = 0;
out:
	btf__free(s->btf);
	btf__free(base);
	free(s->buf);
	if (elf)
		elf_end(elf);
	if (close(fd))
		err = -1;
	return err;
}

int main(int argc, char **argv)
{
	const char *base = NULL;
	struct ids s = { 0 };
	int c;

	while ((c = getopt(argc, argv, "b:")) != -1) {
		if (c != 'b')
			goto usage;
		base = optarg;
	}
	if (optind != argc - 1)
		goto usage;
	s.path = argv[optind];
	if (run(&s, base))
		return 1;
	if (s.unresolved)
		fprintf(stderr, "btfids: %s: %u names without an id (left 0)\n",
			s.path, s.unresolved);
	return 0;
usage:
	fprintf(stderr, "usage: btfids [-b BASE] OBJECT\n");
	return 2;
}
