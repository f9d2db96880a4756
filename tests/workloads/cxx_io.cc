// SPDX-License-Identifier: MIT
// A C++ program whose I/O goes through libhdf5_cpp and std::ofstream:
// one H5::H5File constructed from a C string (DIR/cxx.h5), N
// H5::DataSet::write calls of 1024 doubles, and N std::ostream::write
// calls of 64 bytes each followed by a flush (one write(2) per flush).
// Usage: cxx_io DIR N
#include <H5Cpp.h>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	const std::string dir = argv[1];
	const int n = std::atoi(argv[2]);
	std::vector<double> data(1024, 1.5);
	const hsize_t dims[1] = { data.size() };

	{
		const std::string h5 = dir + "/cxx.h5";
		H5::H5File file(h5.c_str(), H5F_ACC_TRUNC);
		H5::DataSpace space(1, dims);
		H5::DataSet ds =
		    file.createDataSet("d", H5::PredType::NATIVE_DOUBLE, space);

		for (int i = 0; i < n; i++)
			ds.write(data.data(), H5::PredType::NATIVE_DOUBLE);
	}
	std::ofstream out(dir + "/cxx.txt");
	const std::string line(63, 'x');

	for (int i = 0; i < n; i++) {
		out.write((line + "\n").data(), 64);
		out.flush();
	}
	return out.good() ? 0 : 1;
}
