// A C++ test program for dwarf/: namespaces, class and function templates,
// overloads, a lambda, and a little of the standard library, so demangled
// names and deep inlined chains from headers can be checked.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace geo {

template <typename T> struct vec2 {
	T x, y;
	vec2 operator+(const vec2 &o) const { return { x + o.x, y + o.y }; }
	T dot(const vec2 &o) const { return x * o.x + y * o.y; }
};

template <typename T> T total(const std::vector<vec2<T>> &v)
{
	vec2<T> s{ 0, 0 };
	for (const auto &p : v)
		s = s + p;
	return s.dot(s);
}

class shape {
public:
	virtual ~shape() {}
	virtual double area() const = 0;
};

class rect : public shape {
	double w_, h_;
public:
	rect(double w, double h) : w_(w), h_(h) {}
	double area() const override { return w_ * h_; }
};

} // namespace geo

namespace util {
int count(const std::string &s, char c)
{
	return (int)std::count(s.begin(), s.end(), c);
}
int count(const char *s, char c)
{
	int n = 0;
	for (; *s; s++)
		n += *s == c;
	return n;
}
} // namespace util

int main(int argc, char **argv)
{
	std::vector<geo::vec2<int>> vi{ { 1, 2 }, { 3, argc } };
	std::vector<geo::vec2<double>> vd{ { 1.5, 2.5 } };
	geo::rect r(2.0, argc);
	const geo::shape &sh = r;
	std::vector<int> xs{ 5, 1, 4 };
	std::sort(xs.begin(), xs.end(), [](int a, int b) { return a > b; });
	std::string s(argv[0]);
	std::printf("%d %f %f %d %d %d\n", geo::total(vi), geo::total(vd), sh.area(),
		    util::count(s, '/'), util::count(argv[0], 'a'), xs[0]);
	return 0;
}
