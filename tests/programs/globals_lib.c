/* globals_lib.c: libglobals.so for globals.c; nothing of its own is named
 * like the program's globals. */
int lib_calls;

int lib_visit(int n)
{
    lib_calls++;
    return n * 2; /* LINE:lib_visit */
}
