#!/bin/sh
# install_test.sh BUILD_DIR SOURCE_DIR CC "CFLAGS"
#
# Installs the build into a temporary prefix (cmake --install --prefix) and
# checks what an embedder gets there: the headers, libgsvm.a, libgsvm.so with
# its SONAME exporting exactly the public API (the functions the headers
# declare), gsvm.pc and the CMake package.  Then it builds every program of
# examples/embed/ against the prefix four ways — pkg-config static,
# pkg-config shared, find_package static (gsvm::gsvm_static), find_package
# shared (gsvm::gsvm) — checks each binary links the library the way it
# asked, runs it and compares its output with tests/embed/<engine>_host.out.
# CFLAGS are the build's sanitizer flags, so a sanitizer build links its
# instrumented library into programs built with the same runtime.
set -u
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd); cc=$3; cflags=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gsvm-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
pc=$(find "$prefix" -name gsvm.pc)
[ -n "$pc" ] || { echo "FAIL: no gsvm.pc installed"; exit 1; }
libdir=$(dirname "$(dirname "$pc")")
export PKG_CONFIG_PATH="$libdir/pkgconfig"

# --- what is installed ----------------------------------------------------
for f in include/gsvm/gsvm.h; do [ -f "$prefix/$f" ] || bad "missing $f"; done
[ -f "$libdir/libgsvm.a" ] || bad "missing libgsvm.a"
[ -f "$libdir/cmake/gsvm/gsvmConfig.cmake" ] || bad "missing gsvmConfig.cmake"
[ -f "$libdir/cmake/gsvm/gsvmConfigVersion.cmake" ] || bad "missing gsvmConfigVersion.cmake"
[ -f "$libdir/cmake/gsvm/gsvmTargets.cmake" ] || bad "missing gsvmTargets.cmake"
soname=$(readelf -d "$libdir/libgsvm.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
version=$(pkg-config --modversion gsvm)
major_minor=$(echo "$version" | cut -d. -f1,2)
[ "$soname" = "libgsvm.so.$major_minor" ] || bad "SONAME is '$soname', not libgsvm.so.$major_minor"
[ -f "$libdir/$soname" ] || bad "no $soname beside libgsvm.so"
[ -f "$libdir/libgsvm.so.$version" ] || bad "no libgsvm.so.$version"
for h in $(cd "$src/include/gsvm" && ls); do
    cmp -s "$src/include/gsvm/$h" "$prefix/include/gsvm/$h" || bad "include/gsvm/$h not installed as in the tree"
done
# pkg-config gives the include and library directories of this prefix, and
# --static adds every dependency of the static library.
cflags_pc=$(pkg-config --cflags gsvm)
incdir=$(cd "$(pkg-config --variable=includedir gsvm)" 2>/dev/null && pwd -P)
[ "$incdir" = "$(cd "$prefix/include" && pwd -P)" ] || bad "pkg-config includedir is '$incdir'"
first_i=$(echo "$cflags_pc" | tr ' ' '\n' | sed -n 's/^-I//p' | head -1)
[ "$(cd "$first_i" 2>/dev/null && pwd -P)" = "$incdir" ] || bad "pkg-config --cflags: '$cflags_pc'"
libs_static=$(pkg-config --static --libs gsvm)
engines=$(pkg-config --variable=engines gsvm)
for dep in jansson libcrypto; do
    for flag in $(pkg-config --libs-only-l $dep); do
        case " $libs_static " in *" $flag "*) ;; *) bad "pkg-config --static lacks $flag ($dep)";; esac
    done
done
case " $engines " in *" mission "*)
    for dep in lua5.4 sqlite3; do
        for flag in $(pkg-config --libs-only-l $dep); do
            case " $libs_static " in *" $flag "*) ;; *) bad "pkg-config --static lacks $flag ($dep)";; esac
        done
    done;;
esac

# The shared library exports the public API and nothing else.
nm -D --defined-only "$libdir/libgsvm.so" | awk '$2 ~ /^[TDRBW]$/ {print $3}' | sort >"$tmp/exported"
grep -o 'gsvm_[a-z0-9_]*;' "$build/gsvm.map" | tr -d ';' | sort >"$tmp/declared"
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
extra=$(comm -23 "$tmp/exported" "$tmp/declared")
[ -z "$missing" ] || bad "declared in the headers but not in libgsvm.so:" $missing
[ -z "$extra" ] || bad "exported by libgsvm.so but not declared in the headers:" $extra
echo "libgsvm.so ($soname) exports $(wc -l <"$tmp/exported") functions; engines: $engines"

# --- the examples, four ways ----------------------------------------------
needs_gsvm() { readelf -d "$1" | grep -q "NEEDED.*\[$soname\]"; }
run_one() { # WAY BINARY ENGINE STATIC(yes|no)
    way=$1 bin=$2 engine=$3 static=$4
    if [ ! -x "$bin" ]; then bad "$way: ${engine}_host not built"; return; fi
    if [ "$static" = yes ] && needs_gsvm "$bin"; then bad "$way: $engine: links $soname"; fi
    if [ "$static" = no ] && ! needs_gsvm "$bin"; then bad "$way: $engine: does not link $soname"; fi
    if [ "$static" = no ] && ! ldd "$bin" | grep -q "$libdir/$soname"; then
        bad "$way: $engine: does not load $libdir/$soname"
    fi
    (cd "$tmp" && "$bin") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then bad "$way: $engine: exit $rc"; cat "$tmp/err"; return; fi
    if ! diff -u "$src/tests/embed/${engine}_host.out" "$tmp/out"; then bad "$way: $engine: output differs"; return; fi
    echo "ok: $way: $engine"
}
for engine in $engines; do
    ex="$src/examples/embed/${engine}_host.c"
    [ -f "$ex" ] || { bad "no examples/embed/${engine}_host.c"; continue; }
    # pkg-config, static: libgsvm.a by name, its dependencies from --static.
    $cc $cflags -std=c11 -Wall -Wextra -Werror -o "$tmp/${engine}_pc_static" "$ex" $cflags_pc \
        $(echo "$libs_static" | sed 's/-lgsvm\b/-l:libgsvm.a/') || bad "pkg-config static: $engine: build failed"
    run_one "pkg-config static" "$tmp/${engine}_pc_static" "$engine" yes
    # pkg-config, shared: the plain --libs.
    $cc $cflags -std=c11 -Wall -Wextra -Werror -o "$tmp/${engine}_pc_shared" "$ex" $cflags_pc \
        $(pkg-config --libs gsvm) -Wl,-rpath,"$libdir" || bad "pkg-config shared: $engine: build failed"
    run_one "pkg-config shared" "$tmp/${engine}_pc_shared" "$engine" no
done
for mode in static shared; do
    b="$tmp/cmake_$mode"
    st=OFF; [ $mode = static ] && st=ON
    if ! cmake -S "$src/examples/embed" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DGSVM_EMBED_STATIC=$st \
            -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags -Wall -Wextra -Werror" \
            -DCMAKE_EXE_LINKER_FLAGS="$cflags" >"$b.log" 2>&1 ||
       ! cmake --build "$b" >>"$b.log" 2>&1; then
        cat "$b.log"; bad "find_package $mode: configure or build failed"; continue
    fi
    s=no; [ $mode = static ] && s=yes
    for engine in $engines; do run_one "find_package $mode" "$b/${engine}_host" "$engine" $s; done
done
[ $fail = 0 ] && echo "install test: all passed"
exit $fail
