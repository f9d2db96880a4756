// SPDX-License-Identifier: MIT
// A C++ method, exported under its mangled name _ZN3dct5Store3putEi.
namespace dct
{
struct Store {
	int put(int v);
};

int Store::put(int v)
{
	return v * 3;
}
} // namespace dct
