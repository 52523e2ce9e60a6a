#!/usr/bin/env bash
# install-deps.sh: install the Debian 12 packages hindsight needs to build and
# test. Idempotent: prints nothing and exits 0 when everything is present.
# Otherwise runs apt-get update once and installs only the missing packages,
# as root or through `sudo -n`; apt's output goes to a log shown on failure.
set -u

PACKAGES=(
    build-essential make gcc pkg-config
    libipt-dev libelf-dev libdwarf-dev libreadline-dev libzydis-dev
    libjansson-dev libcmocka-dev zlib1g-dev libc6-dbg
    gdb gdbserver lldb valgrind
    clang libclang-rt-14-dev
    python3 procps iproute2 tmux
    btrfs-progs
    nodejs npm chromium
)

# NodeSource's nodejs package brings npm itself (it provides and conflicts
# with Debian's npm): there a working npm command counts as the package.
present() {
    if [ "$1" = npm ] && command -v npm >/dev/null 2>&1; then
        return 0
    fi
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

missing=()
for p in "${PACKAGES[@]}"; do
    present "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    echo "install-deps: missing packages: ${missing[*]}; run as root or with passwordless sudo: apt-get install ${missing[*]}" >&2
    exit 1
fi

log=$(mktemp /tmp/hindsight-install-deps.XXXXXX.log)
echo "install-deps: installing ${missing[*]} (log: $log)"
export DEBIAN_FRONTEND=noninteractive
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null >"$log" 2>&1; then
    echo "install-deps: apt-get update failed:" >&2
    tail -n 30 "$log" >&2
    exit 1
fi
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${missing[@]}" </dev/null >>"$log" 2>&1; then
    echo "install-deps: apt-get install failed:" >&2
    tail -n 30 "$log" >&2
    exit 1
fi
rm -f "$log"
exit 0
