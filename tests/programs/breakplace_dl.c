/* breakplace_dl: the library breakplace.c loads with dlopen (a breakpoint
 * set before it is loaded). */
int dl_scale(int x) { return x * 10; }
