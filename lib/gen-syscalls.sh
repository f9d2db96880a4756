#!/bin/sh
# Write the x86_64 syscall name -> number table from the kernel's UAPI
# header, as C initializers: gen-syscalls.sh OUTPUT CC [CC ARGS...]
set -eu
out=$1
shift
echo '#include <asm/unistd_64.h>' | "$@" -dM -E - |
	sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$/{ "\1", \2 },/p' |
	LC_ALL=C sort >"$out.tmp"
[ -s "$out.tmp" ] || { echo "gen-syscalls.sh: no __NR_ names found" >&2; exit 1; }
mv "$out.tmp" "$out"
