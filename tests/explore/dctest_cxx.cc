// SPDX-License-Identifier: MIT
// The explorer's C++ test library: dct::File's methods put their arguments
// where the x86-64 ABI says, not where they are declared (dctest.hpp).
#include <string>

#include "dctest.hpp"

namespace dct
{
File::File(const char *path, int flags) : fd(flags + (path ? 1 : 0))
{
}

File::~File()
{
}

int File::open(const char *path, int flags)
{
	return path ? flags : -1;
}

std::string File::describe(const char *path) const
{
	return std::string(path) + ":" + std::to_string(fd);
}

long File::scaled(double factor, int fd) const
{
	return (long)(factor * fd) + this->fd;
}

int File::mix(Pair p, int fd) const
{
	return (int)(p.a + p.b) + fd;
}

int File::reopen(const std::string &path, int flags)
{
	return (int)path.size() + flags;
}
} // namespace dct
