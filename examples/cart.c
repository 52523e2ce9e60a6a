/*
 * cart.c: the crashing program examples/demo.sh records with `hindsight
 * run`. A shopping cart keeps one subtotal per day and a pointer to the
 * cheapest item right after them. tally() counts days from 1 to DAYS, so
 * add_day() writes the last day's subtotal one element past the array:
 * over the pointer. report() runs much later, in another function, and
 * dies following it (SIGSEGV at a small address, every run).
 */
#include <stdio.h>

#define DAYS 4

struct item {
    const char *name;
    long price;
};

struct cart {
    long subtotal[DAYS];       /* days 0 .. DAYS - 1 */
    struct item *cheapest;     /* right after subtotal[]: the bug lands here */
};

static struct item items[] = {
    { "apples", 3 }, { "bread", 5 }, { "cheese", 12 }, { "dates", 7 },
};

static struct item *find_cheapest(struct item *list, int n)
{
    struct item *best = &list[0];
    for (int i = 1; i < n; i++)
        if (list[i].price < best->price)
            best = &list[i];
    return best;
}

static void add_day(struct cart *c, int day, long amount)
{
    c->subtotal[day] = amount; /* the bad write when day == DAYS */
}

static void tally(struct cart *c, int days)
{
    for (int day = 1; day <= days; day++)   /* off by one: days are 0 .. days - 1 */
        add_day(c, day, day * 10L);
}

static long total(const struct cart *c)
{
    long sum = 0;
    for (int day = 0; day < DAYS; day++)
        sum += c->subtotal[day];
    return sum;
}

static void print_item(const char *what, const struct item *it)
{
    printf("%s: %s at %ld\n", what, it->name, it->price); /* the crash */
}

static void report(const struct cart *c)
{
    printf("total: %ld\n", total(c));
    print_item("cheapest", c->cheapest);
}

int main(void)
{
    struct cart c = { { 0 }, NULL };

    c.cheapest = find_cheapest(items, 4);
    tally(&c, DAYS);
    report(&c);
    return 0;
}
