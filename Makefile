# gsvm — the README's commands.  Every target first installs the Debian
# packages it needs (tools/install-deps.sh), so they work on a fresh Debian 12
# machine as root.
#
#   make demo    build the gsvm binary and show each engine in a screen or two
#   make test    build with -Wall -Wextra -Werror, ASan and UBSan; run every test (ctest)
#   make bench   optimized build; benchmarks as time ratios against reference interpreters
#   make fuzz    libFuzzer build; a short run of every fuzz target (FUZZ_SECONDS, FUZZ_TARGETS)
#   make build   optimized build only (build/release/gsvm)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?=

.PHONY: all deps build demo test bench fuzz clean

all: build

deps:
	@sh tools/install-deps.sh

build: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build build/release -j $(JOBS)

# demo builds only the gsvm binary (the tests and benches are not needed to show it).
demo: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	cmake --build build/release -j $(JOBS) --target gsvm_cli
	@sh examples/demo.sh build/release/gsvm

test: deps
	cmake -S . -B build/test -DCMAKE_BUILD_TYPE=Debug -DGSVM_WERROR=ON -DGSVM_SANITIZE=ON \
	      -DCMAKE_C_FLAGS="-O1" $(CMAKE_FLAGS) >/dev/null
	cmake --build build/test -j $(JOBS)
	cd build/test && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --output-on-failure -j $(JOBS)

bench: build
	@sh bench/run.sh build/release/gsvm

fuzz: deps
	cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DGSVM_FUZZ=ON \
	      -DCMAKE_C_FLAGS="-O1" $(CMAKE_FLAGS) >/dev/null
	cmake --build build/fuzz -j $(JOBS) --target fuzz_targets
	@sh tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf build
