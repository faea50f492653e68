#!/usr/bin/env bash
# Installs what mpidbg needs to build and test on Debian/Ubuntu, and only
# what is missing: an up-to-date machine is left alone (no apt-get update).
# Runs apt-get as root, or through sudo for a normal user.
set -euo pipefail

# Both MPI libraries mpidbg supports: make builds a shim for each and
# make test runs every test against both. Their packages carry the
# Fortran and C++ wrappers too (mpif90.mpich, mpicxx.openmpi, ...) and
# the Fortran modules, but not the compilers those run: gfortran and g++
# build the test programs of testprogs/fortran and testprogs/cpp.
# python3-mpi4py and python3-numpy: MPI programs written in Python
# (Debian's mpi4py is built with Open MPI, its default MPI).
# slurm-wlm and munge: the tests start a one-node Slurm cluster of their
# own (internal/testenv) to run jobs under srun.
packages=(mpich libmpich-dev openmpi-bin libopenmpi-dev gdb gdbserver gcc g++ gfortran make python3-mpi4py python3-numpy slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js and npm for the VS Code extension's tests (extensions/vscode):
# asked of the commands, not of dpkg, since NodeSource's nodejs carries
# npm and conflicts with Debian's npm package.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "mpidbg: missing ${missing[*]} and no apt-get here; install them with your package manager" >&2
		exit 1
	fi
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "mpidbg: missing ${missing[*]}; run as root or install sudo" >&2
			exit 1
		fi
		sudo=(sudo)
	fi
	echo "mpidbg: installing ${missing[*]}"
	"${sudo[@]}" apt-get update -qq
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go: the module needs 1.23 or newer (range-over-func iterators).
go=$(command -v go || true)
[ -n "$go" ] || [ ! -x /usr/local/go/bin/go ] || go=/usr/local/go/bin/go
if [ -z "$go" ]; then
	echo "mpidbg: Go 1.23 or newer is needed (https://go.dev/dl); put it on PATH or in /usr/local/go" >&2
	exit 1
fi
minor=$("$go" env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if [ "${minor:-0}" -lt 23 ]; then
	echo "mpidbg: $("$go" env GOVERSION) is too old; Go 1.23 or newer is needed" >&2
	exit 1
fi
