/* tests/programs/rec/dlib.c: the library dl.c opens. */
long dl_work(long n);

long dl_work(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i % 3 ? i : -i;
	return s;
}
