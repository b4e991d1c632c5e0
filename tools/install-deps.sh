#!/bin/sh
# Installs the Debian packages gsvm builds, tests and benchmarks with.
# Only missing packages are installed, so a second run costs a dpkg query.
# This list is the single place the project's system dependencies are named.
set -e
PKGS="build-essential cmake pkg-config clang libclang-rt-14-dev
      libjansson-dev libssl-dev liblua5.4-dev libsqlite3-dev
      lua5.4 lua5.1 luajit python3 python3-yaml"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
