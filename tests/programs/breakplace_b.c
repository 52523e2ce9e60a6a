/* breakplace_b: a static function of the same name as breakplace.c's. */
static int helper(int x)
{
	return x + 100;
}

int helper_b(int x)
{
	return helper(x) + helper(x + 1);
}
