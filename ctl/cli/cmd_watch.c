/* sbctl watch BENCH [--json] [--until-done] [--timeout SECONDS] [--bind ADDR]
 * (docs/sbctl-watch.md): <sbench/watch.h> does the work; this file parses,
 * picks the rendering (JSON lines, plain lines, or the live view on a
 * terminal) and maps the end to an exit status. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/numarg.h"
#include "cli/options.h"
#include "sbench/sbench.h"

#define VIEW_EVERY 0.25 /* seconds between two redraws of the live view */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

enum { O_JSON = 1, O_UNTIL_DONE, O_TIMEOUT, O_BIND };

static const struct sb_opt opts[] = {
	{ "json", 0, O_JSON, SB_OPT_FLAG, NULL, "one JSON object per line (docs/watch.md)" },
	{ "until-done", 0, O_UNTIL_DONE, SB_OPT_FLAG, NULL, "stop when no child is pending or running; exit as status does" },
	{ "timeout", 0, O_TIMEOUT, SB_OPT_VALUE, "SECONDS", "stop after this long" },
	{ "bind", 0, O_BIND, SB_OPT_VALUE, "ADDR", "the address agents send to (tcp://HOST:PORT)" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct sb_opt_cmd cmd = {
	"watch",
	"watch BENCH [--json] [--until-done] [--timeout SECONDS] [--bind ADDR]",
	"Shows the benchmark's records as its agents write them: those already in\n"
	"the logs, then the live ones, each verified (docs/watch.md).\n",
	opts,
	NULL,
};

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void redraw(const struct sb_watch *w)
{
	struct winsize ws;
	struct sb_error err;

	fputs("\033[H\033[J", stdout);
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
		ws.ws_col = 80;
	sb_watch_render_view(w, stdout, ws.ws_col, &err);
}

int cmd_watch(int argc, char **argv)
{
	struct sb_watch_opts o = { 0 };
	const char *bench = NULL;
	struct sb_watch *w;
	struct sb_error err;
	struct sigaction sa;
	bool json = false, view, dirty = true;
	double last_draw = 0;
	struct sb_opt_iter it = { 0 };
	const char *v;
	int k, rc;

	while ((k = sb_opt_next(&cmd, argc, argv, &it, &v)) != SB_OPT_END) {
		switch (k) {
		case SB_OPT_HELP: return SB_EXIT_OK;
		case SB_OPT_ERROR: return SB_EXIT_USAGE;
		case O_JSON: json = true; break;
		case O_UNTIL_DONE: o.until_done = true; break;
		case O_TIMEOUT:
			if (sb_parse_seconds(v, 1e9, &o.timeout, &err) < 0) {
				fprintf(stderr, "sbctl watch: --timeout needs a number of seconds: %s\n", err.msg);
				return SB_EXIT_USAGE;
			}
			break;
		case O_BIND: o.bind = v; break;
		case SB_OPT_OPERAND:
			if (sb_opt_operand(&cmd, &bench, v, "BENCH") < 0)
				return SB_EXIT_USAGE;
			break;
		}
	}
	if (bench == NULL) {
		sb_opt_error(&cmd, "missing BENCH (a benchmark directory, name or digest prefix)");
		return SB_EXIT_USAGE;
	}
	view = !json && isatty(STDOUT_FILENO);
	o.track_status = view;
	o.stop = &stop;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error: the watch ends */
	sb_ctx_set_progress(sb_cli_ctx(), NULL, NULL);
	if (sb_watch_open(sb_cli_ctx(), bench, &o, &w, &err) < 0) {
		fprintf(stderr, "sbctl watch: %s\n", err.msg);
		return sb_cli_exit(&err);
	}
	for (;;) {
		struct sb_watch_event ev;

		rc = sb_watch_next(w, view ? VIEW_EVERY : -1, &ev, &err);
		if (rc < 0 || rc == SB_WATCH_DONE)
			break;
		if (rc == SB_WATCH_EVENT && view) {
			dirty = true;
		} else if (rc == SB_WATCH_EVENT) {
			if ((json ? sb_watch_event_json(w, &ev, stdout, &err) :
			     sb_watch_event_text(w, &ev, stdout, &err)) < 0) {
				rc = -1;
				break;
			}
			if (json && (fputc('\n', stdout) == EOF || fflush(stdout) != 0)) {
				rc = -1;
				snprintf(err.msg, sizeof(err.msg), "cannot write the output");
				err.code = SB_ERR_RUNTIME;
				break;
			}
		}
		if (view && dirty && mono() - last_draw >= VIEW_EVERY) {
			redraw(w);
			last_draw = mono();
			dirty = false;
		}
	}
	if (view)
		redraw(w);
	if (rc < 0) {
		/* a reader that went away (EPIPE) is the end, not a failure */
		bool pipe_gone = ferror(stdout) != 0;

		if (!pipe_gone)
			fprintf(stderr, "sbctl watch: %s\n", err.msg);
		sb_watch_close(w);
		return pipe_gone ? SB_EXIT_OK : sb_cli_exit(&err);
	}
	rc = SB_EXIT_OK;
	if (!strcmp(sb_watch_done_reason(w), "done"))
		rc = sb_status_all_succeeded(sb_watch_status(w)) ? SB_EXIT_OK : SB_EXIT_PROBLEM;
	else if (!strcmp(sb_watch_done_reason(w), "timeout") && o.until_done) {
		fprintf(stderr, "sbctl watch: timed out with children still pending or running\n");
		rc = SB_EXIT_RUNTIME;
	}
	sb_watch_close(w);
	return rc;
}
