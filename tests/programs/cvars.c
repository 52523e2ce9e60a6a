/* cvars.c: the program `hindsight replay`'s C expressions (issue #16:
 * print, info locals, info args, ptype) are checked on against GDB. The
 * Makefile builds it twice, build/tests/programs/cvars (-O0 -g) and
 * cvars_O2 (-O2 -g), and e2e tests compile it with lib.sh's build_prog.
 *
 * It has globals of every C kind (int, static, const char *, struct, array
 * of structs, union, enum, 2-D array, char array with trailing zeros,
 * function pointer, bit-fields, a heap-built linked list), a function with
 * arguments and nested block locals (walk), a recursive one (descend), a
 * static inline function gcc inlines at -O2 (scale_clamp), a signal handler
 * and a longjmp. Every interesting place calls stop_here_N (never inlined,
 * never cloned), a stable breakpoint: `break stop_here_2` then `up`.
 * Lines tagged LINE:name are for lib.sh's line_of. It prints nothing that
 * depends on addresses or time: two runs behave the same. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STOP __attribute__((noipa))

struct point {
	int x, y;
};

struct node {
	int value;
	const char *name;
	struct node *next;
};
typedef struct node node_t;

union word {
	unsigned int u;
	float f;
	unsigned char bytes[4];
};

enum color { RED, GREEN = 5, BLUE = -1 };
enum small { S_ZERO, S_ONE, S_TWO };

struct flags {
	unsigned int ready : 1;
	unsigned int mode : 3;
	signed int delta : 5;
	unsigned char tag;
	unsigned int wide : 20;
	unsigned long long big : 40;
};

struct cheap {
	struct node *cheapest;
	struct point corners[2];
	enum color color;
	double weight;
	char label[8];
	union word w;
	struct {
		short a, b;
	} inner;
	int tail[];
};

typedef int (*binop_fn)(int, int);
typedef struct point point_t;
typedef const char *cstr_t;

int g_int = 42;
static int s_counter = 7;
const char *g_str = "hello, cvars";
struct point g_point = { 3, -4 };
struct point g_points[3] = { { 1, 2 }, { 3, 4 }, { 5, 6 } };
union word g_word = { .u = 0x3f800000 };
enum color g_color = GREEN;
enum small g_small = S_TWO;
int g_matrix[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
char g_buf[16] = "abc";
binop_fn g_op;
struct flags g_flags = { 1, 5, -3, 'x', 12345, 0x123456789ULL };
struct node *g_list;
node_t *g_second;
struct cheap g_cheap;
point_t g_typedef_point = { -1, 1 };
cstr_t g_cstr = "typedef'd";
unsigned long g_ulong = 18446744073709551615UL;
long g_long = -1234567890123L;
short g_short = -2;
unsigned char g_uchar = 200;
signed char g_schar = -5;
float g_float = 2.5f;
double g_double = -0.125;
long double g_ldouble = 1.5L;
_Bool g_bool = 1;
int *g_intp = &g_int;
void *g_voidp;
const volatile int g_cv = 9;
static const int k_limit = 1000;        /* -O2: DW_AT_const_value, no address */
static const double k_half = 0.5;       /* a const_value block */
static const char k_name[] = "cvars";   /* a const_value string */
volatile int g_marker;
static jmp_buf g_jmp;
static volatile sig_atomic_t g_signals;

STOP void stop_here_1(int n) { g_marker = n; }
STOP void stop_here_2(long n) { g_marker = (int)n; }
STOP void stop_here_3(int n) { g_marker = n; }
STOP void stop_here_4(int n) { g_marker = n; }
STOP void stop_here_5(int n) { g_marker = n; }
STOP void stop_here_6(int n) { g_marker = n; }
STOP void stop_here_7(int n) { g_marker = n; }

static int add(int a, int b) { return a + b; }

/* Arguments of several kinds, locals in nested blocks, a static local. */
STOP int walk(struct node *head, int limit, struct point origin, const char *why)
{
	static int calls;
	int total = origin.x;
	struct node *n;

	calls++;
	for (n = head; n && limit > 0; n = n->next, limit--) {
		int v = n->value;

		total += v;
		{
			int doubled = v * 2;
			char tag = n->name[0];

			if (doubled > 0 && tag != 'b') {
				long deep = (long)doubled * tag;

				stop_here_2(deep + why[0]); /* LINE:walk_deep */
				total += (int)(deep & 1);
			}
		}
	}
	return total + calls + origin.y;
}

/* Recursion: stop_here_3 at the bottom sees every level's frame. */
STOP int descend(const struct node *n, int level)
{
	int here = level * 10;
	int r;

	if (!n) {
		/* enough names that GDB's hashed block order is not DIE order */
		int kk = level, b = kk + 1, zz = b * 2, a = zz - 1, yy = a + here, c = yy ^ 5;
		int xx = c + 1, d = xx * 3, w = d - kk, e = w + b;

		stop_here_3(here + kk + b + zz + a + yy + c + xx + d + w + e); /* LINE:descend_bottom */
		return level;
	}
	r = descend(n->next, level + 1);
	g_marker += r;
	return r + here;
}

/* Inlined into main at -O2: stop_here_4 inside it is an inlined frame. */
static inline int scale_clamp(int v, int lo, int hi)
{
	int scaled = v * 3;

	if (scaled < lo)
		scaled = lo;
	if (scaled > hi)
		scaled = hi;
	stop_here_4(scaled); /* LINE:inlined */
	return scaled + s_counter;
}

static void on_usr1(int sig)
{
	int seen = sig + (int)g_signals;

	stop_here_5(seen); /* LINE:handler */
	g_signals++;       /* after the call: no tail call at -O2, on_usr1 keeps its frame */
}

STOP void jumper(int depth)
{
	int here = depth * 2;

	if (depth == 0) {
		stop_here_6(here); /* LINE:before_longjmp */
		longjmp(g_jmp, 7);
	}
	jumper(depth - 1);
	g_marker = here;
}

static struct node *list_build(void)
{
	static const char *const names[] = { "alpha", "beta", "gamma" };
	struct node *head = NULL;

	for (int i = 2; i >= 0; i--) {
		struct node *n = malloc(sizeof(*n));

		if (!n)
			exit(1);
		n->value = (i + 1) * 10;
		n->name = names[i];
		n->next = head;
		head = n;
	}
	return head;
}

int main(int argc, char **argv)
{
	struct point origin = { argc, 2 };
	int counts[4] = { 1, 1, 2, 3 };
	volatile int jumped;
	int total;

	g_list = list_build();
	g_second = g_list->next;
	g_op = add;
	g_cheap.cheapest = g_second;
	g_cheap.corners[1].y = 8;
	g_cheap.color = BLUE;
	g_cheap.weight = 0.5;
	strcpy(g_cheap.label, "cheap");
	g_cheap.w.u = 0x01020304;
	g_cheap.inner.b = -3;
	g_voidp = &g_cheap;
	stop_here_1(counts[3]); /* LINE:main_start */

	total = walk(g_list, 3, origin, argv[0]);
	total += descend(g_list, 0);
	total += scale_clamp(total, 5, k_limit) + (int)(k_half * 2) + k_name[1];
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	jumped = setjmp(g_jmp);
	if (jumped == 0)
		jumper(2);
	else
		stop_here_7(jumped); /* LINE:after_longjmp */
	total += g_op(counts[2], s_counter);
	printf("cvars: %d %d\n", total, (int)g_signals);
	return 0;
}
