# Sourced by scripts/demo and scripts/test: choose the Python environment referee is installed in.
#
#   use_python_env NAME   sets PYTHON (the interpreter to install into and run) and PYTHON_ENV (its
#                         environment), saying on stderr what it does, one line a step:
#     - an active virtual environment ($VIRTUAL_ENV, or $PYTHON inside one) is used as it is;
#     - otherwise .venv in the checkout, made with `python3 -m venv` when missing. Debian and
#       Ubuntu ship `venv` without `ensurepip` until python3-venv is installed: as root we
#       install it with apt, otherwise we say the exact command.
#   Never pip-installs into the system's Python (PEP 668's "externally-managed-environment").
#   The Python must be 3.11 or newer (pyproject.toml's requires-python); an older one is refused
#   with what to do. $PYTHON names the interpreter to start from (default: the first python3,
#   python3.13, python3.12 or python3.11 on PATH that is new enough).

MIN_PYTHON=3.11

say() { echo "$SCRIPT_NAME: $*" >&2; }
die() { echo "$SCRIPT_NAME: error: $*" >&2; exit 1; }

python_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null; }

python_new_enough() {
    "$1" -c "import sys; sys.exit(0 if sys.version_info[:2] >= tuple(map(int, '$MIN_PYTHON'.split('.'))) else 1)" \
        2>/dev/null
}

in_a_venv() { "$1" -c 'import sys; sys.exit(0 if sys.prefix != sys.base_prefix else 1)' 2>/dev/null; }

find_base_python() {
    if [ -n "${PYTHON:-}" ]; then
        command -v "$PYTHON" >/dev/null 2>&1 || die "PYTHON=$PYTHON: no such program"
        python_new_enough "$PYTHON" && { command -v "$PYTHON"; return; }
        die "referee needs Python $MIN_PYTHON or newer; PYTHON=$PYTHON is $(python_version "$PYTHON" || echo unknown)"
    fi
    local candidate found=""
    for candidate in python3 python3.13 python3.12 python3.11; do
        command -v "$candidate" >/dev/null 2>&1 || continue
        [ -n "$found" ] || found=$candidate
        python_new_enough "$candidate" && { command -v "$candidate"; return; }
    done
    [ -n "$found" ] || die "no python3 found: install Python $MIN_PYTHON or newer (Debian/Ubuntu: apt install python3)"
    die "referee needs Python $MIN_PYTHON or newer, and $found here is $(python_version "$found")." \
        "Install a newer one (Debian 12 and Ubuntu 24.04 ship 3.11 and 3.12), then run again," \
        "naming it if it is not python3: PYTHON=python3.11 $0"
}

ensure_venv_module() {  # $1: the base interpreter
    "$1" -c 'import venv, ensurepip' 2>/dev/null && return
    local version package
    version=$(python_version "$1")
    package=python3-venv
    if command -v apt-cache >/dev/null 2>&1 && apt-cache show "python$version-venv" >/dev/null 2>&1; then
        package="python$version-venv"
    fi
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        die "$1 cannot make a virtual environment (its venv/ensurepip module is missing)." \
            "Install it, then run again: sudo apt install $package"
    fi
    say "installing $package with apt (Python's venv module, which Debian and Ubuntu ship apart)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
}

use_python_env() {
    SCRIPT_NAME=$1
    local base
    if [ -n "${VIRTUAL_ENV:-}" ] && [ -z "${PYTHON:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
        PYTHON="$VIRTUAL_ENV/bin/python"
    fi
    base=$(find_base_python)
    if in_a_venv "$base"; then
        PYTHON=$base
        PYTHON_ENV=$("$PYTHON" -c 'import sys; print(sys.prefix)')
        say "using the active virtual environment $PYTHON_ENV (Python $(python_version "$PYTHON"))"
    else
        PYTHON_ENV=$PWD/.venv
        PYTHON=$PYTHON_ENV/bin/python
        if [ -x "$PYTHON" ] && ! python_new_enough "$PYTHON"; then
            say "$PYTHON_ENV is broken or too old: making it again"
            rm -rf "$PYTHON_ENV"
        fi
        if [ ! -x "$PYTHON" ]; then
            ensure_venv_module "$base"
            say "making a virtual environment in .venv (with $base, Python $(python_version "$base"))"
            "$base" -m venv "$PYTHON_ENV"
        else
            say "using the virtual environment .venv (Python $(python_version "$PYTHON"))"
        fi
    fi
    "$PYTHON" -m pip --version >/dev/null 2>&1 || "$PYTHON" -m ensurepip --upgrade >/dev/null 2>&1 ||
        die "$PYTHON_ENV has no pip, and ensurepip cannot add it"
}

pip_install() {  # pip_install WHAT ARGS...: one line saying what, then pip without its progress bars
    local what=$1
    shift
    say "installing $what (pip install $*): this takes a minute the first time"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check "$@"
}
