/* SPDX-License-Identifier: MIT */
/* The C++ header of the explorer's test library: where each argument
 * travels differs from its place in the declaration. */
#ifndef DCTEST_HPP
#define DCTEST_HPP

#include <string>

namespace dct
{
struct Pair {
	long a, b;
};

class File
{
      public:
	/* this, path, flags */
	File(const char *path, int flags);
	virtual ~File();
	/* path, flags: no this */
	static int open(const char *path, int flags);
	/* the std::string's address, this, path */
	std::string describe(const char *path) const;
	/* this, fd: the double goes in a vector register */
	long scaled(double factor, int fd) const;
	/* a small struct by value: where fd goes is the ABI's choice */
	int mix(Pair p, int fd) const;
	/* a std::string's characters are not at its address */
	int reopen(const std::string &path, int flags);

      private:
	int fd;
};
} // namespace dct

#endif
