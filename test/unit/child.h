/*
 * child.h
 *	  Trying in a child process what should stop a check: the standalone
 *	  host aborts on a limit (port_standalone.c), which would end the test
 *	  itself.
 */
#ifndef ISOGRAPH_TEST_CHILD_H
#define ISOGRAPH_TEST_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef enum ChildOutcome
{
	CHILD_RETURNED,				/* fn returned */
	CHILD_ABORTED,				/* fn stopped the check (SIGABRT) */
	CHILD_OTHER					/* anything else: fn's _exit(non-zero), a crash */
} ChildOutcome;

/*
 * Run fn(arg) in a child whose stderr (an abort's message) is kept off the
 * TAP and, when said is not NULL, returned there (at most size - 1 bytes,
 * NUL-terminated), so that a test can check what a limit says.  fn may
 * _exit(non-zero) to say it found a wrong result.
 */
static ChildOutcome
run_in_child_said(void (*fn) (void *arg), void *arg, char *said, size_t size)
{
	pid_t		pid;
	int			status = 0;
	int			fd[2];
	size_t		got = 0;
	ssize_t		r;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fd) != 0)
		return CHILD_OTHER;
	pid = fork();
	if (pid == 0)
	{
		close(fd[0]);
		if (dup2(fd[1], STDERR_FILENO) < 0)
			_exit(3);
		close(fd[1]);
		fn(arg);
		_exit(0);
	}
	close(fd[1]);
	/* read to the end before waiting: the child must never block on a full pipe */
	for (;;)
	{
		char		sink[256];
		char	   *to = (said != NULL && got + 1 < size) ? said + got : sink;
		size_t		room = (said != NULL && got + 1 < size) ? size - 1 - got : sizeof(sink);

		r = read(fd[0], to, room);
		if (r <= 0)
			break;
		if (to != sink)
			got += (size_t) r;
	}
	close(fd[0]);
	if (said != NULL && size > 0)
		said[got] = '\0';
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return CHILD_OTHER;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return CHILD_RETURNED;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)
		return CHILD_ABORTED;
	return CHILD_OTHER;
}

static ChildOutcome
run_in_child(void (*fn) (void *arg), void *arg)
{
	return run_in_child_said(fn, arg, NULL, 0);
}

/*
 * Whether fn(arg) stops the check saying what: the child aborts and the
 * first line of its stderr holds what.  said (size bytes) gets that line,
 * for the test's name.
 */
static inline bool
child_stops_saying(void (*fn) (void *arg), void *arg, const char *what,
				   char *said, size_t size)
{
	bool		aborted;

	said[0] = '\0';
	aborted = run_in_child_said(fn, arg, said, size) == CHILD_ABORTED;
	said[strcspn(said, "\n")] = '\0';
	return aborted && strstr(said, what) != NULL;
}

#endif							/* ISOGRAPH_TEST_CHILD_H */
