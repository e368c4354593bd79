// SPDX-License-Identifier: GPL-2.0
/*
 * The btfids suite's fixture: types and functions in an order their names
 * do not sort in, and the .BTF_ids entries the kernel's btf_ids.h macros
 * make of them (a list, a set and a set8, each out of order).
 */
struct zeta { int z; };
struct alpha { long a; };
union mid { int i; char c; };
typedef unsigned int fx_t;

#define ID(kind, name, n)						\
	".pushsection .BTF_ids,\"a\"\n"					\
	"__BTF_ID__" #kind "__" #name "__" #n ":\n.zero 4\n.popsection\n"
#define ID8(kind, name, n, flags)					\
	".pushsection .BTF_ids,\"a\"\n"					\
	"__BTF_ID__" #kind "__" #name "__" #n ":\n.zero 4\n"		\
	".long " #flags "\n.popsection\n"

int fx_zz(struct zeta *z);
int fx_zz(struct zeta *z) { return z->z; }
long fx_aa(struct alpha *a);
long fx_aa(struct alpha *a) { return a->a; }
int fx_mm(union mid *m, fx_t t);
int fx_mm(union mid *m, fx_t t) { return m->i + (int)t; }

asm(".pushsection .BTF_ids,\"a\"\nfx_list:\n.popsection\n"
    ID(struct, zeta, 1) ID(func, fx_mm, 2) ID(union, mid, 3)
    ID(typedef, fx_t, 4) ID(struct, alpha, 5) ID(func, fx_nosuch, 6)
    ".pushsection .BTF_ids,\"a\"\n__BTF_ID__set__fx_set:\n.zero 4\nfx_set:\n.popsection\n"
    ID(func, fx_zz, 7) ID(func, fx_mm, 8) ID(struct, zeta, 9) ID(func, fx_aa, 10)
    ".pushsection .BTF_ids,\"a\"\n.size __BTF_ID__set__fx_set, .-fx_set+4\n.popsection\n"
    ".pushsection .BTF_ids,\"a\"\n__BTF_ID__set8__fx_set8:\n.zero 8\nfx_set8:\n.popsection\n"
    ID8(func, fx_zz, 11, 5) ID8(func, fx_aa, 12, 3) ID8(func, fx_mm, 13, 9)
    ".pushsection .BTF_ids,\"a\"\n.size __BTF_ID__set8__fx_set8, .-fx_set8+8\n.popsection\n");
