// SPDX-License-Identifier: GPL-2.0
/*
 * make e2e-debug-selftest: a module that does on purpose what the debug
 * kernel must report (tests/vm/e2e-debug.sh selftest), one fault per load
 * (what=lockdep|kasan|ubsan|leak|warn). It never stays loaded; busybox
 * insmod retries a failed finit_module with init_module, so each runs twice.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *what = "";
module_param(what, charp, 0);

static void *volatile leaked;
static DEFINE_SPINLOCK(lock_a);
static DEFINE_SPINLOCK(lock_b);

static int __init pdselftest_init(void)
{
	if (!strcmp(what, "kasan")) {
		volatile char *p = kmalloc(16, GFP_KERNEL);

		if (p) {
			pr_info("pdselftest: out of bounds: %d\n", p[16]);
			kfree((void *)p);
		}
	} else if (!strcmp(what, "ubsan")) {
		volatile int shift = 40;

		pr_info("pdselftest: shift: %d\n", 1 << shift);
	} else if (!strcmp(what, "leak")) {
		leaked = kmalloc(64, GFP_KERNEL);
		leaked = NULL;
	} else if (!strcmp(what, "lockdep")) {
		/* A then B, then B then A: no deadlock here, but lockdep sees one */
		spin_lock(&lock_a);
		spin_lock(&lock_b);
		spin_unlock(&lock_b);
		spin_unlock(&lock_a);
		spin_lock(&lock_b);
		spin_lock(&lock_a);
		spin_unlock(&lock_a);
		spin_unlock(&lock_b);
	} else if (!strcmp(what, "warn")) {
		WARN_ON(1);
	}
	return -EAGAIN;
}
module_init(pdselftest_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("faults on purpose, for make e2e-debug-selftest");
