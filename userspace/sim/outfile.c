// SPDX-License-Identifier: GPL-2.0
/* dedup-sim's output files: see outfile.h. */
#define _GNU_SOURCE		/* mkostemp() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

/*
 * The temporary files that exist, for the signal handler and for exit():
 * paths in static memory, armed while the file exists.
 */
#define OUT_SLOTS 4
static char slot_path[OUT_SLOTS][PATH_MAX];
static volatile sig_atomic_t slot_armed[OUT_SLOTS];
static bool slot_used[OUT_SLOTS];
static bool guards_set;
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void remove_temporaries(void)
{
	int i;

	for (i = 0; i < OUT_SLOTS; i++)
		if (slot_armed[i]) {
			unlink(slot_path[i]);
			slot_armed[i] = 0;
		}
}

/* Remove the temporary files, then die of the signal as if not caught. */
static void on_signal(int sig)
{
	int saved = errno;

	remove_temporaries();
	errno = saved;
	/* SA_RESETHAND restored the default action, SA_NODEFER lets it in */
	raise(sig);
}

static void set_guards(void)
{
	struct sigaction sa, old;
	unsigned int i;

	if (guards_set)
		return;
	guards_set = true;
	atexit(remove_temporaries);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]);
	     i++) {
		/* a signal the caller ignores (nohup) stays ignored */
		if (sigaction(cleanup_signals[i], NULL, &old) ||
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(cleanup_signals[i], &sa, NULL);
	}
}

/* Block the cleanup signals (how: SIG_BLOCK) or let them in again. */
static void hold_signals(int how, sigset_t *saved)
{
	sigset_t set;
	unsigned int i;

	if (how == SIG_SETMASK) {
		sigprocmask(SIG_SETMASK, saved, NULL);
		return;
	}
	sigemptyset(&set);
	for (i = 0; i < sizeof(cleanup_signals) / sizeof(cleanup_signals[0]);
	     i++)
		sigaddset(&set, cleanup_signals[i]);
	sigprocmask(SIG_BLOCK, &set, saved);
}

static void say(char *err, size_t errlen, const char *path, int e)
{
	snprintf(err, errlen, "%s: %s", path, strerror(e));
}

/* dir + "/" + name, or NULL */
static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	if (p)
		snprintf(p, n, "%s%s%s", dir,
			 dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	return p;
}

/*
 * A path that is not there: the file it would create, through symbolic
 * links that point nowhere (as open(O_CREAT) follows them). NULL, errno
 * set, on failure.
 */
static char *follow_dangling(const char *path)
{
	char *p = strdup(path);
	int i;

	for (i = 0; p && i < 40; i++) {
		char link[PATH_MAX], *slash, *q;
		struct stat s;
		ssize_t n;

		if (lstat(p, &s) || !S_ISLNK(s.st_mode))
			return p;
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0) {
			free(p);
			return NULL;
		}
		link[n] = '\0';
		slash = strrchr(p, '/');
		if (link[0] == '/' || !slash) {
			q = strdup(link);
		} else {
			slash[1] = '\0';
			q = join(p, link);
		}
		free(p);
		p = q;
	}
	if (p) {
		free(p);
		errno = ELOOP;
	} else {
		errno = ENOMEM;
	}
	return NULL;
}

int outfile_resolve(struct outfile *o, const char *opt, const char *path,
		    char *err, size_t errlen)
{
	char *p, *slash, *dir = NULL;
	const char *name;
	struct stat s;
	mode_t mask;

	memset(o, 0, sizeof(*o));
	o->opt = opt;
	o->path = path;
	o->fd = -1;
	o->slot = -1;
	if (!strcmp(path, "-")) {
		o->is_stdout = o->direct = true;
		if (!fstat(STDOUT_FILENO, &s)) {
			o->id.exists = true;
			o->id.dev = s.st_dev;
			o->id.ino = s.st_ino;
		}
		return 0;
	}
	if (!stat(path, &s)) {
		o->id.exists = true;
		o->id.dev = s.st_dev;
		o->id.ino = s.st_ino;
		if (S_ISDIR(s.st_mode)) {
			say(err, errlen, path, EISDIR);
			return -1;
		}
		if (!S_ISREG(s.st_mode)) {
			o->direct = true;	/* a FIFO, a device */
			return 0;
		}
		/* through symbolic links: the file they name is replaced */
		o->target = realpath(path, NULL);
		if (!o->target) {
			say(err, errlen, path, errno);
			return -1;
		}
		o->mode = s.st_mode & 0777;
		return 0;
	}
	if (errno != ENOENT) {
		say(err, errlen, path, errno);
		return -1;
	}
	/* a new file: its directory, resolved, and its name there */
	p = follow_dangling(path);
	if (!p) {
		say(err, errlen, path, errno);
		return -1;
	}
	slash = strrchr(p, '/');
	name = slash ? slash + 1 : p;
	if (!*name) {
		free(p);
		say(err, errlen, path, EISDIR);
		return -1;
	}
	if (slash == p) {
		dir = realpath("/", NULL);
	} else if (slash) {
		*slash = '\0';
		dir = realpath(p, NULL);
	} else {
		dir = realpath(".", NULL);
	}
	if (!dir || stat(dir, &s)) {
		say(err, errlen, path, errno);
		free(dir);
		free(p);
		return -1;
	}
	o->id.dir_dev = s.st_dev;
	o->id.dir_ino = s.st_ino;
	o->id.name = strdup(name);
	o->target = join(dir, name);
	free(dir);
	free(p);
	if (!o->id.name || !o->target) {
		say(err, errlen, path, ENOMEM);
		return -1;
	}
	mask = umask(022);
	umask(mask);
	o->mode = 0666 & ~mask;		/* as open(O_CREAT) would make it */
	return 0;
}

void input_id(const char *path, struct file_id *id)
{
	struct stat s;

	memset(id, 0, sizeof(*id));
	if (strcmp(path, "-") ? stat(path, &s) :
	    fstat(STDIN_FILENO, &s) || !S_ISREG(s.st_mode))
		return;
	id->exists = true;
	id->dev = s.st_dev;
	id->ino = s.st_ino;
}

bool file_id_same(const struct file_id *a, const struct file_id *b)
{
	if (a->exists != b->exists)
		return false;
	if (a->exists)
		return a->dev == b->dev && a->ino == b->ino;
	return a->name && b->name && a->dir_dev == b->dir_dev &&
	       a->dir_ino == b->dir_ino && !strcmp(a->name, b->name);
}

/* A temporary file beside the target: ".NAME.XXXXXX" in its directory. */
static int open_temporary(struct outfile *o, char *err, size_t errlen)
{
	char *slash = strrchr(o->target, '/');
	const char *name = slash + 1;
	size_t dirlen = (size_t)(slash - o->target) + 1;
	sigset_t saved;
	int i, fd, n;

	for (i = 0; i < OUT_SLOTS && slot_used[i]; i++)
		;
	if (i == OUT_SLOTS) {
		say(err, errlen, o->path, EMFILE);
		return -1;
	}
	/* a long name shortened, so that the temporary name fits NAME_MAX */
	n = snprintf(slot_path[i], sizeof(slot_path[i]), "%.*s.%.200s.XXXXXX",
		     (int)dirlen, o->target, name);
	if (n < 0 || (size_t)n >= sizeof(slot_path[i])) {
		say(err, errlen, o->path, ENAMETOOLONG);
		return -1;
	}
	set_guards();
	/* no signal between the file's creation and its slot armed */
	hold_signals(SIG_BLOCK, &saved);
	fd = mkostemp(slot_path[i], O_CLOEXEC);
	if (fd >= 0)
		slot_armed[i] = 1;
	hold_signals(SIG_SETMASK, &saved);
	if (fd < 0) {
		/* "PATH: cannot create a temporary file in DIR: why" */
		snprintf(err, errlen,
			 "%s: cannot create a temporary file in %.*s: %s",
			 o->path, (int)(dirlen > 1 ? dirlen - 1 : dirlen),
			 o->target, strerror(errno));
		return -1;
	}
	slot_used[i] = true;
	o->slot = i;
	if (fchmod(fd, o->mode)) {
		say(err, errlen, o->path, errno);
		o->fd = fd;
		outfile_abort(o);
		return -1;
	}
	return fd;
}

int outfile_open(struct outfile *o, char *err, size_t errlen)
{
	/* past a file size limit (ulimit -f), a write error, not a death */
	signal(SIGXFSZ, SIG_IGN);
	if (o->is_stdout)
		return o->fd = STDOUT_FILENO;
	if (o->direct) {
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			say(err, errlen, o->path, errno);
		return o->fd;
	}
	o->fd = open_temporary(o, err, errlen);
	return o->fd;
}

static void release_slot(struct outfile *o, bool remove)
{
	if (o->slot < 0)
		return;
	if (remove && slot_armed[o->slot])
		unlink(slot_path[o->slot]);
	slot_armed[o->slot] = 0;
	slot_used[o->slot] = false;
	o->slot = -1;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	sigset_t saved;
	int fd = o->fd;

	o->fd = -1;
	if (o->is_stdout)
		return 0;
	if (fd >= 0 && close(fd)) {
		say(err, errlen, o->path, errno);
		release_slot(o, true);
		return -1;
	}
	if (o->slot < 0)
		return 0;
	hold_signals(SIG_BLOCK, &saved);
	if (rename(slot_path[o->slot], o->target)) {
		say(err, errlen, o->path, errno);
		release_slot(o, true);
		hold_signals(SIG_SETMASK, &saved);
		return -1;
	}
	release_slot(o, false);
	hold_signals(SIG_SETMASK, &saved);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->fd >= 0 && !o->is_stdout)
		close(o->fd);
	o->fd = -1;
	release_slot(o, true);
}

void outfile_free(struct outfile *o)
{
	free(o->target);
	free(o->id.name);
	o->target = NULL;
	o->id.name = NULL;
}
