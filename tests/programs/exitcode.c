/* exitcode.c: returns 7 from main, so the debugger must report exit code 07. */
int exit_helper(int x)
{
    return x + 4;
}

int main(void)
{
    return exit_helper(3);
}
