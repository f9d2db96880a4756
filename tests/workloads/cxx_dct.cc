// SPDX-License-Identifier: MIT
// Calls of the explorer's C++ test library with known arguments: one
// dct::File constructed on PATH, then N File::describe(PATH), whose
// std::string result the ABI builds at an address passed before `this`.
// Usage: cxx_dct PATH N
#include <cstdlib>
#include <string>

#include "dctest.hpp"

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	dct::File f(argv[1], 2);
	const int n = std::atoi(argv[2]);
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += f.describe(argv[1]).size();
	return len ? 0 : 1;
}
