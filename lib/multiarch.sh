#!/bin/sh
# Print the multiarch triplet among the compiler's system include
# directories (Debian's /usr/include/x86_64-linux-gnu), or nothing where
# there is none: multiarch.sh CC [CC ARGS...]. gcc alone knows
# -print-multiarch; gcc and clang both list their directories with -v.
"$@" -E -v -x c /dev/null 2>&1 >/dev/null |
	sed -n 's|^ /usr/include/\([^/ ]*\)$|\1|p' | head -n 1
