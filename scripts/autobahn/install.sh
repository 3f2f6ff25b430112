#!/usr/bin/env bash
# Installs the Autobahn|Testsuite fuzzing client (`wstest`, autobahntestsuite 25.10.1) into the user's cache and
# prints the directory it lives in. The first run takes a minute or two and needs Debian's archive and PyPI; later
# runs print the directory at once, offline.
#
# autobahntestsuite runs on Python 2.7 only, which Debian 12 no longer ships. So the client gets a private CPython
# 2.7 from Debian 11 (bullseye) packages: downloaded with apt-get under a private state directory (the system's
# sources, lists and installed packages stay untouched) and unpacked with dpkg-deb, nothing installed system-wide.
# pip 20.3.4, the last pip that runs on Python 2.7, then installs pinned versions of the client and its
# dependencies. Concurrent first runs wait for each other (flock); an interrupted install leaves nothing behind.
#
# usage: scripts/autobahn/install.sh        (stdout: the install directory; bin/wstest and bin/python2 in it)
# env:
#   XDG_CACHE_HOME          cache root (default ~/.cache); the client goes to
#                           $XDG_CACHE_HOME/rollcall/autobahn-testsuite-25.10.1
#   AUTOBAHN_INSTALL_DIR    install directory instead of the one above
#   AUTOBAHN_DEBIAN_MIRROR  Debian mirror for the bullseye packages (default: the first Debian mirror in apt's
#                           sources, and its security mirror for the security updates; with this set, the
#                           security updates come from the same URL with -security appended)
# exit: 0 installed, 2 could not install (the install log's tail goes to stderr)
set -euo pipefail

version=25.10.1
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rollcall
target=${AUTOBAHN_INSTALL_DIR:-$cache/autobahn-testsuite-$version}
marker="$target/.installed"

# CPython 2.7.18 from Debian 11, its headers (wsaccel and ujson compile against them), and the two libraries of
# bullseye that bookworm replaced (OpenSSL 1.1 for the ssl module, libffi 7 for ctypes and cffi).
debian_packages=(python2.7 python2.7-minimal libpython2.7 libpython2.7-stdlib libpython2.7-minimal
    libpython2.7-dev libssl1.1 libffi7)
# Installed first: the build tools for the sdists below (autobahn 0.10.9 is one, and its setup.py needs
# setuptools).
bootstrap_requirements=(pip==20.3.4 setuptools==44.0.0 wheel==0.37.1)
# The client and everything it imports, pinned to the last releases that still support Python 2.7.
requirements=(
    autobahntestsuite==25.10.1 autobahn==0.10.9 txaio==2.1.0 wsaccel==0.6.6 ujson==2.0.3 six==1.16.0
    Twisted==19.10.0 zope.interface==4.6.0 incremental==16.10.1 constantly==15.1.0 Automat==22.10.0 attrs==21.4.0
    hyperlink==21.0.0 idna==2.10 PyHamcrest==1.10.1 pyOpenSSL==19.1.0 cryptography==3.3.2 cffi==1.15.1
    pycparser==2.21 enum34==1.1.10 ipaddress==1.0.23 service-identity==18.1.0 pyasn1==0.5.1 pyasn1-modules==0.3.0
    Jinja2==2.11.3 MarkupSafe==1.1.1 Werkzeug==1.0.1 klein==17.10.0 unittest2==1.1.0 linecache2==1.0.0
    traceback2==1.4.0 typing==3.10.0.0
)

# The marker holds what was installed: a change to the lists above installs afresh.
stamp="${debian_packages[*]} ${bootstrap_requirements[*]} ${requirements[*]}"
installed() { [ "$(cat "$marker" 2>/dev/null)" = "$stamp" ]; }
if installed; then
    echo "$target"
    exit 0
fi

fail() {
    echo "autobahn: $*" >&2
    exit 2
}

for command in apt-get dpkg-deb python3 gcc flock timeout; do
    command -v "$command" >/dev/null || fail "cannot install the fuzzing client: '$command' is missing" \
        "(scripts/install-test-deps.sh installs what the test command needs)"
done

# The Debian mirrors apt already uses (deb822 .sources files first, then the one-line format): with "security"
# the first security mirror, else the first other one.
debian_mirror() {
    local kind=$1 uris
    uris=$(awk 'tolower($1) == "uris:" { for (i = 2; i <= NF; i++) print $i }' \
        /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    if [ -z "$uris" ]; then
        uris=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z+]+:\/\//) { print $i; break } }' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
    fi
    if [ "$kind" = security ]; then
        uris=$(grep -- 'security' <<<"$uris" || true)
    else
        uris=$(grep -v -- 'security' <<<"$uris" || true)
    fi
    uris=${uris%%$'\n'*}
    echo "${uris%/}"
}

# One install attempt into $1 (a fresh directory), its log on stdout and stderr.
install_into() {
    local root=$1 work=$1/.work
    mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/apt/empty" "$work/debs" \
        "$work/wheels" "$root/bin"

    local mirror security
    if [ -n "${AUTOBAHN_DEBIAN_MIRROR:-}" ]; then
        mirror=${AUTOBAHN_DEBIAN_MIRROR%/}
        security=$mirror-security
    else
        mirror=$(debian_mirror main)
        security=$(debian_mirror security)
        [ -n "$security" ] || security=$mirror-security
    fi
    [ -n "$mirror" ] || { echo "no Debian mirror in apt's sources; set AUTOBAHN_DEBIAN_MIRROR"; return 1; }
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    local signed=""
    [ -f "$keyring" ] && signed="[signed-by=$keyring] "
    printf 'deb %s%s bullseye main\ndeb %s%s bullseye-security main\n' \
        "$signed" "$mirror" "$signed" "$security" >"$work/apt/sources.list"
    local apt=(-q -o "Dir::Etc::SourceList=$work/apt/sources.list" -o "Dir::Etc::SourceParts=$work/apt/empty"
        -o "Dir::Etc::Preferences=$work/apt/empty/preferences" -o "Dir::Etc::PreferencesParts=$work/apt/empty"
        -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache" -o "Acquire::Languages=none")
    # apt fetches as the unprivileged _apt user, which cannot write into root's private directories.
    [ "$(id -u)" -eq 0 ] && apt+=(-o APT::Sandbox::User=root)

    echo "== Debian 11 packages from $mirror and $security: ${debian_packages[*]}"
    timeout 600 apt-get "${apt[@]}" --error-on=any update
    (cd "$work/debs" && timeout 600 apt-get "${apt[@]}" download "${debian_packages[@]}")
    local deb
    for deb in "$work"/debs/*.deb; do
        dpkg-deb -x "$deb" "$root/python2.7"
    done
    local libdir
    libdir=$(cd "$root/python2.7" && find usr/lib -name 'libssl.so.1.1' -printf '%h\n' -quit)
    [ -n "$libdir" ] || { echo "libssl.so.1.1 missing from the unpacked packages"; return 1; }

    # The interpreter, with the bullseye libraries beside it and nothing from the user's Python setup.
    cat >"$root/bin/python2" <<EOF
#!/bin/sh
# CPython 2.7 unpacked from Debian 11 packages, with their OpenSSL 1.1 and libffi 7 (scripts/autobahn/install.sh).
root=\$(cd "\$(dirname "\$0")/.." && pwd)/python2.7
export LD_LIBRARY_PATH="\$root/$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export CPATH="\$root/usr/include/python2.7:\$root/usr/include\${CPATH:+:\$CPATH}"
export PYTHONNOUSERSITE=1
unset PYTHONPATH PYTHONHOME
exec "\$root/usr/bin/python2.7" "\$@"
EOF
    cat >"$root/bin/wstest" <<'EOF'
#!/bin/sh
# The Autobahn|Testsuite command line on the private Python 2.7 (scripts/autobahn/install.sh).
exec "$(dirname "$0")/python2" -m autobahntestsuite.wstest "$@"
EOF
    chmod +x "$root/bin/python2" "$root/bin/wstest"
    "$root/bin/python2" -c 'import ssl, ctypes, zlib, json; print("python2: " + ssl.OPENSSL_VERSION)'

    # pip 20.3.4 comes from PyPI through the system's Python 3 (a throwaway venv has pip even where Debian's
    # python3-pip is not installed); Python 2 runs it from the wheel to install itself.
    echo "== pip for Python 2.7: ${bootstrap_requirements[*]}"
    python3 -m venv "$work/py3"
    timeout 600 "$work/py3/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps \
        --only-binary :all: --dest "$work/wheels" "${bootstrap_requirements[0]}"
    local pip_wheel
    pip_wheel=$(find "$work/wheels" -name 'pip-*.whl' -print -quit)
    # pip, setuptools and wheel are installed before anything is built: sdists built by pip running from inside
    # its own wheel fail (PEP 517 builds need an installed pip).
    timeout 600 "$root/bin/python2" "$pip_wheel/pip" install --disable-pip-version-check --no-warn-script-location \
        "$pip_wheel" "${bootstrap_requirements[@]:1}"
    echo "== the client: ${requirements[*]}"
    timeout 1200 "$root/bin/python2" -m pip install --disable-pip-version-check --no-warn-script-location \
        "${requirements[@]}"
    "$root/bin/python2" -m pip check
    "$root/bin/wstest" --help >/dev/null
    rm -rf "$work"
    echo "$stamp" >"$root/.installed"
}

mkdir -p "$(dirname "$target")"
exec 9>"$target.lock"
if ! flock -n 9; then
    echo "autobahn: waiting for another install of the fuzzing client into $target" >&2
    flock 9
fi
if ! installed; then
    # Only a finished install is ever renamed to $target (an older one is replaced), so anything else there is not
    # ours to remove.
    if [ -e "$marker" ]; then
        rm -rf "$target"
    elif [ -e "$target" ]; then
        fail "$target exists but holds no install of this script; remove it"
    fi
    staging="$target.partial"
    rm -rf "$staging"
    mkdir -p "$staging"
    log="$(dirname "$target")/autobahn-testsuite-install.log"
    echo "autobahn: installing the fuzzing client (Python 2.7 and autobahntestsuite $version, about a minute) into" \
        "$target; log: $log" >&2
    started=$SECONDS
    # errexit holds inside the subshell only when it is no condition: so no `if !` here.
    set +e
    (
        set -e
        install_into "$staging"
    ) >"$log" 2>&1
    status=$?
    set -e
    if [ "$status" -ne 0 ]; then
        tail -n 25 "$log" >&2
        rm -rf "$staging"
        fail "could not install the fuzzing client (the whole log: $log)"
    fi
    mv "$staging" "$target"
    echo "autobahn: fuzzing client installed in $((SECONDS - started))s" >&2
fi
echo "$target"
