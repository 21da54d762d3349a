#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages sbench needs to build and test,
# when any is missing.  Safe to run again: it installs nothing when all are
# there.  Needs root (or sudo) only when something is missing.
set -euo pipefail
pkgs=(cmake make gcc libc6-dev git pkg-config libzmq3-dev libmsgpack-dev libyaml-dev
      libsqlite3-dev libssl-dev libcmocka-dev openssl time jq bc procps
      go-md2man man-db binutils python3 python3-pytest python3-venv
      python3-pip python3-setuptools python3-wheel unzip  # tests/pip: pip wheel, no network
      musl-tools  # sbagent is a static musl program (agent/CMakeLists.txt)
      chromium)  # chromium: tests/report/test_report.sh renders the report headless
if [ "${SB_WITH_FUZZ:-0}" = 1 ]; then pkgs+=(clang libclang-rt-14-dev); fi
# tests/storage: a caching network file system, an sshd on loopback seen
# through sshfs clients
if [ "${SB_WITH_STORAGE:-0}" = 1 ]; then pkgs+=(openssh-server openssh-client sshfs util-linux); fi
missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}" >&2
sudo=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null; then sudo=sudo; else
		echo "install-deps: missing packages ${missing[*]}; run this script as root" >&2
		exit 1
	fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
