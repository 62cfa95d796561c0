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
#include <sys/wait.h>
#include <unistd.h>

typedef enum ChildOutcome
{
	CHILD_RETURNED,				/* fn returned */
	CHILD_ABORTED,				/* fn stopped the check (SIGABRT) */
	CHILD_OTHER					/* anything else: fn's _exit(non-zero), a crash */
} ChildOutcome;

/*
 * Run fn(arg) in a child whose stderr (an abort's expected message) is
 * kept off the TAP.  fn may _exit(non-zero) to say it found a wrong result.
 */
static ChildOutcome
run_in_child(void (*fn) (void *arg), void *arg)
{
	pid_t		pid;
	int			status = 0;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
	{
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(3);
		fn(arg);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return CHILD_OTHER;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return CHILD_RETURNED;
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)
		return CHILD_ABORTED;
	return CHILD_OTHER;
}

#endif							/* ISOGRAPH_TEST_CHILD_H */
