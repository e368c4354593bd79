// SPDX-License-Identifier: GPL-2.0
/*
 * The tail digest built a second time, with its portable NH (32-bit
 * halves, for compilers without a 128-bit type) under other names, so
 * that fuzz_nh compares it with the 128-bit one on any input.
 */
#define PD_NH_PORTABLE
#define pd_nh_init pd_nhp_init
#define pd_nh_update pd_nhp_update
#define pd_nh_final pd_nhp_final
#define pd_nh_digest pd_nhp_digest
#define pd_nh_key_random pd_nhp_key_random
#define pd_nh_key_seed pd_nhp_key_seed
#include "../../module/core/nh.c"
