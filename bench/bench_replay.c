/*
 * bench/bench_replay.c: the replay cursor's latencies and scan rate on a
 * recording.
 *
 *   bench_replay DIR [POSITIONS]
 *
 * On the first thread of bundle DIR: builds the cursor (the index), then at
 * POSITIONS (default 1000) random positions measures
 *   - jump: replay_cursor_goto to a position outside the window (one PSB
 *     period of decoding),
 *   - reverse-step and step: one instruction back / forward from there,
 * and prints the median and 99th percentile of each; then the
 * reverse-continue scan: from the end of the history back to a breakpoint
 * at the first instruction's address, in instructions scanned per second,
 * with an interrupt flag to read as `hindsight replay` gives one (never
 * set here). One line per measure:
 *
 *   index           <items> items  <seconds> s  <rate> items/s
 *   jump            median <us> us  p99 <us> us
 *   reverse-step    median <us> us  p99 <us> us
 *   step            median <us> us  p99 <us> us
 *   reverse-continue <items> items  <seconds> s  <rate> items/s  stop <kind> at <pos>
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, double *us, size_t n)
{
	qsort(us, n, sizeof(*us), cmp_double);
	printf("%-16s median %.1f us  p99 %.1f us  max %.1f us\n", what, us[n / 2],
	       us[n * 99 / 100], us[n - 1]);
}

/* A random position in 2 .. size (so there is one before and after). */
static uint64_t random_position(uint64_t size)
{
	uint64_t r = ((uint64_t)random() << 31) ^ (uint64_t)random();

	return 2 + r % (size - 1);
}

static int latencies(struct replay_cursor *c, size_t n)
{
	double *jump = calloc(n, sizeof(double)), *back = calloc(n, sizeof(double));
	double *fwd = calloc(n, sizeof(double));
	uint64_t size = replay_cursor_size(c);

	if (!jump || !back || !fwd)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t p = random_position(size);
		double t0 = now(), t1, t2, t3;

		replay_cursor_goto(c, p);
		t1 = now();
		replay_cursor_step(c, REPLAY_BACKWARD);
		t2 = now();
		replay_cursor_step(c, REPLAY_FORWARD);
		t3 = now();
		jump[i] = (t1 - t0) * 1e6;
		back[i] = (t2 - t1) * 1e6;
		fwd[i] = (t3 - t2) * 1e6;
	}
	report("jump", jump, n);
	report("reverse-step", back, n);
	report("step", fwd, n);
	free(jump);
	free(back);
	free(fwd);
	return 0;
}

static void scan(struct replay_cursor *c)
{
	static const char *kinds[] = { "step", "break", "gap", "begin", "end", "interrupted" };
	static volatile sig_atomic_t never_set;
	uint64_t first;
	struct replay_cursor_breaks bps = { &first, 1 };
	double t0, t1;
	int r;

	if (replay_cursor_item_ip(c, 1, &first) < 0)
		return;
	replay_cursor_goto(c, replay_cursor_size(c) + 1);
	replay_cursor_set_interrupt(c, &never_set);
	t0 = now();
	r = replay_cursor_continue(c, REPLAY_BACKWARD, &bps);
	t1 = now();
	printf("reverse-continue %" PRIu64 " items  %.3f s  %.0f items/s  stop %s at %" PRIu64 "\n",
	       replay_cursor_scanned(c), t1 - t0, (double)replay_cursor_scanned(c) / (t1 - t0),
	       r >= 0 && r <= REPLAY_CURSOR_INTERRUPTED ? kinds[r] : "error",
	       replay_cursor_position(c));
}

int main(int argc, char **argv)
{
	struct replay_bundle *b = NULL;
	struct replay_cursor *c = NULL;
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000;
	char err[512];
	double t0, t1;
	int rc;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_replay DIR [POSITIONS]\n");
		return 2;
	}
	if (replay_bundle_load(argv[1], &b, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_replay: %s\n", err);
		return 1;
	}
	t0 = now();
	rc = b->nthreads ? replay_cursor_new(b, 0, NULL, NULL, &c) : -1;
	t1 = now();
	if (rc < 0 || replay_cursor_size(c) < 3 || !n) {
		fprintf(stderr, "bench_replay: %s: no history to measure\n", argv[1]);
		replay_cursor_free(c);
		replay_bundle_free(b);
		return 1;
	}
	printf("index           %" PRIu64 " items  %.3f s  %.0f items/s\n", replay_cursor_size(c),
	       t1 - t0, (double)replay_cursor_size(c) / (t1 - t0));
	srandom(1);
	rc = latencies(c, n);
	scan(c);
	replay_cursor_free(c);
	replay_bundle_free(b);
	return rc < 0 ? 1 : 0;
}
