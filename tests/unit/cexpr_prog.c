/* tests/unit/cexpr_prog.c: the globals test_cexpr.c prints both with GDB
 * (natively, from this program's file) and with replay/frontend/cexpr over the same
 * bytes; test_cexpr.c describes these same declarations by hand as
 * dw_type graphs. Built with gcc -g -O0 -no-pie at test time. */
#include <stdbool.h>

struct node { int value; struct node *next; };
enum color { RED, GREEN, BLUE };
enum flags { F_A = 1, F_B = 2, F_C = 4 };
enum sign { NEG = -1, ZERO, POS };
typedef struct node node_t;
struct bits { unsigned int flag : 1; unsigned int mode : 3; int neg : 4; unsigned char c; };
struct outer {
	int a;
	struct { int b; int c; };
	union { int i; float f; } u;
	char name[16];
	const char *s;
	int (*fn)(int);
	double d;
};
struct pt { short x, y; };

int square(int x) { return x * x; }

struct node n3 = { 3, 0 };
struct node n2 = { 2, &n3 };
struct node list = { 1, &n2 };
node_t *head = &list;
int arr[5] = { 1, 2, 3, 4, 5 };
int zeros[16];
int mat[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
char buf[16] = "hi";
char abc[4] = "abc";
char abc6[6] = "abc";
const char *str = "hello";
char c = 'A', c0 = 0, cm = -1;
unsigned char uc = 200;
short sh = -3;
long lg = -1234567890123L;
unsigned long ul = 18446744073709551615UL;
bool yes = true;
float fl = 1.5f;
double dbl = 0.1;
long double ld = 0.1L;
enum color col = BLUE, col7 = 7;
enum flags fl3 = F_A | F_C, fl9 = F_A | 8, fl0 = 0;
enum sign sg = NEG;
struct bits bt = { 1, 5, -3, 'x' };
struct outer out = { 7, { 8, 9 }, { 42 }, "name", "str", square, 2.5 };
int (*fp)(int) = square;
void *vp = &arr;
int *ip = &arr[1];
int (*pa)[3] = &mat[0];
char *cp = buf;
struct node nodes[12];
int big[300] = { 1 };
char esc[8] = "\a\t\n\"'\\\033";
char longs[300] = "0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789";
int r11[12] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3 };
char s11[13] = "aaaaaaaaaaab";
struct pt pts[3] = { { 1, 2 }, { 3, 4 }, { 5, 6 } };
const char *const cstr = "x";
unsigned char *ucp = (unsigned char *)buf;
char *strs[2] = { "a", "b" };
double dz = -0.0;
char *bad = (char *)16;

typedef unsigned char uint8_t;
typedef char *string_t;
struct flex { int n; char tail[]; };
struct empty { };
struct flex fx = { 3 };
struct empty emp;
int z2[12][12];
char mid[30] = "ab\0\0\0\0\0\0\0\0\0\0\0\0\0\0cd";
char hi[4] = "\377\200a";
char **argvp = strs;
int (*fns[2])(int) = { square, 0 };
float fa[3] = { 1.5, 2.25, -0.1 };
string_t sp = "abc";
uint8_t *u8p = (uint8_t *)mid;
uint8_t u8arr[4] = { 1, 2, 3, 4 };
_Bool bools[3] = { 1, 0, 1 };
volatile int vi = 5;
const int ci[2] = { 7, 8 };
long double lda[2] = { 1.5L, 2.5L };
typedef struct { int x; } foo_t;
foo_t fv = { 3 };
foo_t *fvp = &fv;
const char *lstr = "0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789";
const char *l200 = "0123456789012345678901234567890123456789012345678901234567890123456789"
	"0123456789012345678901234567890123456789012345678901234567890123456789"
	"012345678901234567890123456789012345678901234567890123456789";
char nonul[4] = "abcd";
char *nnp = nonul;
struct iflex { int n; int v[]; } ifx = { 2 };
/* examples/cart.c's types, its cart as the crash leaves it */
struct item { const char *name; long price; };
struct cart { long subtotal[4]; struct item *cheapest; };
struct item items[] = { { "apples", 3 }, { "bread", 5 }, { "cheese", 12 }, { "dates", 7 } };
struct cart cart = { { 0, 10, 20, 30 }, (struct item *)40 };
struct cart *cartp = &cart;
int seq[250] = {
	0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 63, 66,
	69, 72, 75, 78, 81, 84, 87, 90, 93, 96, 99, 102, 105, 108, 111, 114, 117, 120, 123, 126,
	129, 132, 135, 138, 141, 144, 147, 150, 153, 156, 159, 162, 165, 168, 171, 174, 177,
	180, 183, 186, 189, 192, 195, 198, 201, 204, 207, 210, 213, 216, 219, 222, 225, 228,
	231, 234, 237, 240, 243, 246, 249, 252, 255, 258, 261, 264, 267, 270, 273, 276, 279,
	282, 285, 288, 291, 294, 297, 300, 303, 306, 309, 312, 315, 318, 321, 324, 327, 330,
	333, 336, 339, 342, 345, 348, 351, 354, 357, 360, 363, 366, 369, 372, 375, 378, 381,
	384, 387, 390, 393, 396, 399, 402, 405, 408, 411, 414, 417, 420, 423, 426, 429, 432,
	435, 438, 441, 444, 447, 450, 453, 456, 459, 462, 465, 468, 471, 474, 477, 480, 483,
	486, 489, 492, 495, 498, 501, 504, 507, 510, 513, 516, 519, 522, 525, 528, 531, 534,
	537, 540, 543, 546, 549, 552, 555, 558, 561, 564, 567, 570, 573, 576, 579, 582, 585,
	588, 591, 594, 597, 600, 603, 606, 609, 612, 615, 618, 621, 624, 627, 630, 633, 636,
	639, 642, 645, 648, 651, 654, 657, 660, 663, 666, 669, 672, 675, 678, 681, 684, 687,
	690, 693, 696, 699, 702, 705, 708, 711, 714, 717, 720, 723, 726, 729, 732, 735, 738,
	741, 744, 747
};

int main(void)
{
	return 0;
}
