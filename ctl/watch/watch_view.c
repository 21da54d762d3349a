/* Live watch, rendered (include/sbench/watch.h): the JSON line of each
 * event, and the live view of a terminal. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log/logview_private.h"
#include "base/render.h"
#include "watch/watch_private.h"
#include "proto/json.h"
#include "proto/util.h"
#include "sbench/sbench.h"

/* ---- JSON lines ---- */

static void json_counts(struct sb_json *j, const struct sb_watch *w)
{
	sb_json_key(j, "counted");
	sb_json_obj_begin(j);
	sb_json_key(j, "records");
	sb_json_uint(j, w->counts.records);
	sb_json_key(j, "live");
	sb_json_uint(j, w->counts.live);
	sb_json_key(j, "bad_frames");
	sb_json_uint(j, w->counts.bad_frames);
	sb_json_key(j, "rejected");
	sb_json_uint(j, w->counts.rejected);
	sb_json_obj_end(j);
}

/* A record: the object of `sbctl log --json`, with "live" added before its
 * closing brace. */
static int json_record(const struct sb_watch_event *ev, FILE *out)
{
	struct sb_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool bad;

	if (m == NULL)
		return -1;
	sb_json_init(&j, m);
	sb_logview_json_record(&j, ev->rec, ev->path);
	bad = sb_json_error(&j);
	if (fclose(m) != 0 || bad || len < 2 || buf[len - 1] != '}') {
		free(buf);
		return -1;
	}
	fwrite(buf, 1, len - 1, out);
	fprintf(out, ",\"live\":%s}", ev->live ? "true" : "false");
	free(buf);
	return 0;
}

int sb_watch_event_json(const struct sb_watch *w, const struct sb_watch_event *ev,
	FILE *out, struct sb_error *err)
{
	struct sb_json j;
	size_t i;

	if (ev->kind == SB_WATCH_RECORD) {
		if (json_record(ev, out) < 0)
			return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
		return sb_render_flush(out, err);
	}
	sb_json_init(&j, out);
	sb_json_obj_begin(&j);
	sb_json_key(&j, "format");
	sb_json_int(&j, 1);
	switch (ev->kind) {
	case SB_WATCH_BAD_FRAME:
		sb_json_key(&j, "bad_frame");
		sb_json_obj_begin(&j);
		sb_json_key(&j, "class");
		sb_json_str(&j, sb_log_tail_name(ev->tail));
		sb_json_key(&j, "detail");
		sb_json_str(&j, ev->detail);
		sb_json_key(&j, "bytes");
		sb_json_uint(&j, ev->size);
		sb_json_obj_end(&j);
		break;
	case SB_WATCH_REJECTED:
		sb_json_key(&j, "rejected");
		sb_json_obj_begin(&j);
		sb_json_key(&j, "detail");
		sb_json_str(&j, ev->detail);
		sb_json_obj_end(&j);
		break;
	case SB_WATCH_PROBLEM:
		sb_json_key(&j, "problem");
		sb_json_obj_begin(&j);
		sb_json_key(&j, "path");
		sb_json_str(&j, ev->path);
		sb_json_key(&j, "tail");
		sb_json_str(&j, sb_log_tail_name(ev->tail));
		sb_json_key(&j, "detail");
		sb_json_str(&j, ev->detail);
		sb_json_obj_end(&j);
		break;
	case SB_WATCH_STATUS:
		sb_json_key(&j, "status");
		sb_json_obj_begin(&j);
		for (i = 0; w->status && i < SB_CLASS_COUNT; i++) {
			sb_json_key(&j, sb_class_name((enum sb_class)i));
			sb_json_uint(&j, sb_status_count(w->status, (enum sb_class)i));
		}
		sb_json_obj_end(&j);
		break;
	default:
		break;
	}
	json_counts(&j, w);
	sb_json_obj_end(&j);
	return sb_render_flush(out, err);
}

int sb_watch_next_json(struct sb_watch *w, double wait_s, char **line, struct sb_error *err)
{
	struct sb_watch_event ev;
	size_t len = 0;
	FILE *m;
	int rc;

	*line = NULL;
	rc = sb_watch_next(w, wait_s, &ev, err);
	if (rc != SB_WATCH_EVENT)
		return rc;
	m = open_memstream(line, &len);
	if (m == NULL)
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	if (sb_watch_event_json(w, &ev, m, err) < 0) {
		fclose(m);
		free(*line);
		*line = NULL;
		return -1;
	}
	if (fclose(m) != 0) {
		free(*line);
		*line = NULL;
		return sb_error_set(err, SB_ERR_NOMEM, "out of memory");
	}
	return rc;
}

int sb_watch_event_text(const struct sb_watch *w, const struct sb_watch_event *ev,
	FILE *out, struct sb_error *err)
{
	size_t i;

	switch (ev->kind) {
	case SB_WATCH_RECORD:
		if (ev->rec->id.child < 0) /* a record of the benchmark's own (a submission) */
			fprintf(out, "benchmark%s: ", ev->live ? "" : " (file)");
		else
			fprintf(out, "child %" PRId64 " attempt %" PRId64 "%s: ", ev->rec->id.child,
				ev->rec->id.attempt, ev->live ? "" : " (file)");
		sb_logview_human_record(out, ev->rec);
		break;
	case SB_WATCH_BAD_FRAME:
		fprintf(out, "refused a frame of %zu bytes: %s (%s)\n", ev->size,
			ev->detail ? ev->detail : "", sb_log_tail_name(ev->tail));
		break;
	case SB_WATCH_REJECTED:
		fprintf(out, "%s\n", ev->detail ? ev->detail : "refused a connection");
		break;
	case SB_WATCH_PROBLEM:
		fprintf(out, "%s: %s (%s)\n", ev->path, ev->detail ? ev->detail : "",
			sb_log_tail_name(ev->tail));
		break;
	case SB_WATCH_STATUS:
		fputs("status:", out);
		for (i = 0; w->status && i < SB_CLASS_COUNT; i++)
			if (sb_status_count(w->status, (enum sb_class)i))
				fprintf(out, " %s %zu", sb_class_name((enum sb_class)i),
					sb_status_count(w->status, (enum sb_class)i));
		fputc('\n', out);
		break;
	}
	return sb_render_flush(out, err);
}

/* ---- the live view ---- */

static void bar(FILE *out, double p, int width)
{
	int i, full = (int)floor(p * width + 0.5);

	fputc('[', out);
	for (i = 0; i < width; i++)
		fputc(i < full ? '#' : ' ', out);
	fprintf(out, "] %3d%%", (int)floor(p * 100 + 0.5));
}

int sb_watch_render_view(const struct sb_watch *w, FILE *out, int width,
	struct sb_error *err)
{
	struct timespec ts;
	char t[SB_DOUBLE_TEXT_MAX];
	size_t i, shown = 0, running = 0, rows;
	int64_t now_ns;

	if (width <= 0)
		width = 80;
	clock_gettime(CLOCK_REALTIME, &ts);
	now_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	fprintf(out, "%s  %.12s  %zu %s  %" PRIu64 " records (%zu live)\n",
		sb_bench_name(w->bench), sb_bench_digest(w->bench), w->nchildren,
		sb_plural(w->nchildren, "child", "children"),
		(uint64_t)w->counts.records, w->counts.live);
	if (w->status) {
		bool first = true;

		for (i = 0; i < SB_CLASS_COUNT; i++) {
			size_t n = sb_status_count(w->status, (enum sb_class)i);

			if (n == 0)
				continue;
			fprintf(out, "%s%s %zu", first ? "" : "  ", sb_class_name((enum sb_class)i), n);
			first = false;
		}
		fputc('\n', out);
	} else {
		fputs("(status not computed yet)\n", out);
	}
	if (w->counts.bad_frames || w->counts.rejected)
		fprintf(out, "refused: %zu frames that do not verify, %zu connections without the key\n",
			w->counts.bad_frames, w->counts.rejected);
	for (i = 0; i < w->nchildren; i++)
		if (w->children[i].started && !w->children[i].finished)
			running++;
	rows = running;
	if (rows > 40)
		rows = 40;
	if (running)
		fprintf(out, "%-8s %-4s %10s %10s %9s  %s\n", "child", "att", "elapsed", "rss",
			"cpu", "progress, latest metrics");
	for (i = 0; i < w->nchildren && shown < rows; i++) {
		const struct sb_watch_child *ch = &w->children[i];
		const struct sb_watch_run *c;
		double since;

		if (!ch->started || ch->finished || ch->run == 0)
			continue;
		c = &w->runs[ch->run - 1];
		since = c->last_ns ? (double)(now_ns - c->last_ns) * 1e-9 : 0;
		shown++;
		fprintf(out, "%-8zu %-4" PRId64 " %9ss %6" PRId64 " MiB ", i, ch->attempt,
			sb_fmt_double_short(floor(c->elapsed_s * 10) / 10, t), c->max_rss_kb / 1024);
		fprintf(out, "%8ss  ", sb_fmt_double_short(floor((c->user_s + c->sys_s) * 10) / 10, t));
		if (c->progress >= 0) {
			bar(out, c->progress, width > 100 ? 20 : 10);
			fputc(' ', out);
		}
		if (c->metrics[0])
			fprintf(out, "%s", c->metrics);
		else if (c->progress < 0)
			fprintf(out, "last record %.0fs ago", since < 0 ? 0 : since);
		fputc('\n', out);
	}
	if (running > shown)
		fprintf(out, "... and %zu more running\n", running - shown);
	return sb_render_flush(out, err);
}
