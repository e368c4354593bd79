/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdnet: what its commands share (pdnet.c, pdnet_fuzz.c).
 */
#ifndef PDNET_H
#define PDNET_H

#include <stddef.h>
#include <stdint.h>

/* perror(what) and exit 1 */
void die(const char *what) __attribute__((noreturn));
/* The Internet checksum: sum16() adds 16-bit words to s, fold() ends it. */
uint32_t sum16(const uint8_t *p, size_t len, uint32_t s);
uint16_t fold(uint32_t s);
void put16(uint8_t *p, uint16_t v);
/* Run on CPU cpu only. */
void pin(unsigned long cpu);

int cmd_fuzz(int argc, char **argv);
/* pdnet_pcap.c: captures in and out of the guest */
int cmd_replay(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_pcapcmp(int argc, char **argv);
/* pdnet_taps.c: two taps and a mirror */
int cmd_taps(int argc, char **argv);
/* pdnet_nonip.c: frames that are not IP, each from two taps */
int cmd_nonip(int argc, char **argv);

#endif /* PDNET_H */
