/* tests/unit/cexpr_prog.c: the globals test_cexpr.c prints both with GDB
 * (natively, from this program's file) and with replay/cexpr over the same
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

int main(void)
{
	return 0;
}
