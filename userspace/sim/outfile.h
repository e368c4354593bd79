/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dedup-sim's output files (--write, --write-dups): which file each names,
 * so that no output is the input or another output by any path, and their
 * replacement as a whole.
 *
 * A file is written to a temporary file beside it (same directory, same
 * filesystem) and renamed over it once complete: a run that fails, is
 * interrupted (SIGINT, SIGTERM, SIGHUP, SIGPIPE) or exits on an error
 * leaves the file as it was and no temporary file behind. Standard output,
 * a pipe and a device cannot be renamed over: they are written directly.
 * No fsync(): the replacement protects against the run failing, not
 * against the machine crashing, as editcap's output does not either.
 */
#ifndef PD_SIM_OUTFILE_H
#define PD_SIM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A file by identity: the file itself, or a new one's directory and name. */
struct file_id {
	bool exists;		/* dev, ino: the file */
	dev_t dev;
	ino_t ino;
	dev_t dir_dev;		/* a file not there yet: its directory */
	ino_t dir_ino;
	char *name;		/* and its name there */
};

struct outfile {
	const char *opt;	/* the option naming it, e.g. "--write" */
	const char *path;	/* as given; "-" is standard output */
	struct file_id id;
	bool is_stdout;
	bool direct;		/* written in place (standard output, a FIFO,
				 * a device) */
	char *target;		/* a file: the path renamed over, resolved */
	mode_t mode;		/* its permissions: the old file's, else
				 * 0666 & ~umask */
	int fd;			/* the temporary file or the direct output */
	int slot;		/* the temporary file's cleanup slot, or -1 */
};

/*
 * What path names, without creating or opening anything: 0, or -1 with a
 * message in err (a directory, a directory that does not exist, ...).
 */
int outfile_resolve(struct outfile *o, const char *opt, const char *path,
		    char *err, size_t errlen);
/* The input's identity: a file's, standard input's if it is a file. */
void input_id(const char *path, struct file_id *id);
/* Whether two identities are the same file (or the same new file). */
bool file_id_same(const struct file_id *a, const struct file_id *b);
/*
 * Create the file to write: a temporary file beside the target, or the
 * direct output opened. Returns a descriptor the caller may dup() and
 * write, or -1 with a message in err. Standard output: its descriptor.
 */
int outfile_open(struct outfile *o, char *err, size_t errlen);
/*
 * The output is complete: close it and rename the temporary file over the
 * target. 0, or -1 with a message in err (the temporary file removed).
 */
int outfile_commit(struct outfile *o, char *err, size_t errlen);
/* The output failed: close it and remove the temporary file. */
void outfile_abort(struct outfile *o);
void outfile_free(struct outfile *o);

#endif /* PD_SIM_OUTFILE_H */
