# Sourced by the set-up scripts: apt_install WHO PACKAGE... installs the
# Debian packages with apt-get (through sudo unless root), or, where there
# is no apt-get, asks for them by name and fails. WHO prefixes the messages.
apt_install() {
  local who=$1
  shift
  (($#)) || return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$who: please install: $* (Debian package names)" >&2
    return 1
  fi
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "$who: installing $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
