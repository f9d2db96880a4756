// SPDX-License-Identifier: MIT
/* Calls the test library a known number of times: the explorer's round
 * trip (explore -> gen -> runtime) must trace each call with its args. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "dctest.h"

int main(int argc, char **argv)
{
	char buf[4096] = { 0 };
	int fd;

	if (argc != 2)
		return 2;
	fd = dct_open(argv[1], O_CREAT | O_RDWR);
	if (fd < 0)
		return 1;
	for (int i = 0; i < 7; i++)
		dct_pwrite(fd, buf, 100 + i, 1000 * i);
	for (int i = 0; i < 3; i++)
		dct_read(fd, buf, 64);
	dct_flush(stdout);
	dct_close(fd);
	printf("{\"open\":1,\"pwrite\":7,\"read\":3,\"flush\":1,\"close\":1,"
	       "\"fd\":%d}\n",
	       fd);
	return 0;
}
