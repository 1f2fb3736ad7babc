#!/usr/bin/env bash
# What a newcomer runs, literally: a fresh clone, `npm install`, `npm start` with an empty environment (PATH and
# HOME only), the CLI before the first start, while the server runs and after Ctrl-C, the quickstart's first
# commands (a user, a machine client, a client_credentials token, a /v1 call), and a second `npm start` on the same
# data, ready within 10 s. Run as root and as an ordinary account:
#   scripts/ci/newcomer.sh REPO            as the current user
#   scripts/ci/newcomer.sh REPO --as USER  as USER (made with useradd when missing; needs root)
# Any failure prints the server's last log lines.
set -euo pipefail

repo=${1:?usage: newcomer.sh REPO [--as USER]}
as_user=""
[ "${2:-}" = "--as" ] && as_user=${3:?--as needs a user name}
node_bin=$(dirname "$(command -v node)")

if [ -n "$as_user" ]; then
  id "$as_user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$as_user"
  home=$(getent passwd "$as_user" | cut -d: -f6)
  # The account gets its own readable copy of the repository and of this script (the checkout may sit in a
  # private directory such as /root), and clones from it as a newcomer would.
  shared=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-newcomer-repo-XXXXXX")
  trap 'rm -rf "$shared"' EXIT
  git clone --quiet --bare "$repo" "$shared/gatehouse.git"
  cp "$repo/scripts/ci/newcomer.sh" "$shared/newcomer.sh"
  chown -R "$as_user" "$shared"
  keep=()
  for name in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR; do [ -n "${!name:-}" ] && keep+=("$name=${!name}"); done
  runuser -u "$as_user" -- env -i PATH="$node_bin:/usr/bin:/bin" HOME="$home" "${keep[@]}" bash "$shared/newcomer.sh" "$shared/gatehouse.git"
  exit $?
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-newcomer-XXXXXX")
server_pid=""
log="$work/server.log"
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -INT -- "-$server_pid" 2>/dev/null || true; sleep 2; kill -KILL -- "-$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "newcomer ($(id -un)): FAILED: $*" >&2
  if [ -f "$log" ]; then echo "--- the server's last log lines ---" >&2; tail -n 30 "$log" >&2; fi
  if [ -f "$work/gatehouse/data/postgres.log" ]; then echo "--- data/postgres.log ---" >&2; tail -n 15 "$work/gatehouse/data/postgres.log" >&2; fi
  exit 1
}
# The newcomer's shell: nothing in the environment but PATH and HOME. npm install also keeps the machine's own
# certificate settings, where it has them: they are how this machine reaches the registry, not Gatehouse settings.
plain() { env -i PATH="$node_bin:/usr/bin:/bin" HOME="$HOME" "$@"; }
trust=()
for name in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR; do [ -n "${!name:-}" ] && trust+=("$name=${!name}"); done
step() { echo "newcomer ($(id -un)): $*"; }

git clone --quiet "$repo" "$work/gatehouse"
cd "$work/gatehouse"

step "npm install (Node.js $(node --version))"
plain "${trust[@]}" npm install --no-audit --no-fund >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "npm install"; }
if grep -q EBADENGINE "$work/install.log"; then grep EBADENGINE "$work/install.log"; fail "npm install printed EBADENGINE"; fi

json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(v===undefined)process.exit(1);console.log(v)})' "$1"; }

step "the CLI before the first npm start (it creates the database)"
out=$(plain npx gatehouse users create --username alice --password 'correct horse battery' --email alice@example.com --name 'Alice Example' 2>"$work/cli.err") || fail "users create before the first start: $out $(cat "$work/cli.err")"
user_id=$(echo "$out" | json id) || fail "users create printed no id: $out"

start() {
  # A terminal's process group, so that Ctrl-C (SIGINT to the group) reaches npm and the server alike.
  setsid env -i PATH="$node_bin:/usr/bin:/bin" HOME="$HOME" npm "$@" start >>"$log" 2>&1 &
  server_pid=$!
  local started=$SECONDS
  until curl -sf http://localhost:3000/healthz >/dev/null 2>&1; do
    kill -0 "$server_pid" 2>/dev/null || fail "npm start exited before it was ready"
    [ $((SECONDS - started)) -lt 90 ] || fail "npm start was not ready in 90 s"
    sleep 0.2
  done
  ready_after=$((SECONDS - started))
}
ctrl_c() {
  kill -INT -- "-$server_pid"
  for _ in $(seq 1 150); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$server_pid" 2>/dev/null && fail "the server did not stop within 30 s of Ctrl-C"
  wait "$server_pid" || true
  server_pid=""
}

step "npm start"
start
step "ready after ${ready_after} s (first start)"

step "the quickstart's first commands while the server runs"
out=$(plain npx gatehouse clients create --name 'Backend' --type confidential --grant-types client_credentials --scope "users:read orders:read" 2>"$work/cli.err") || fail "clients create: $out $(cat "$work/cli.err")"
client_id=$(echo "$out" | json client_id) || fail "no client_id: $out"
client_secret=$(echo "$out" | json client_secret) || fail "no client_secret: $out"
out=$(curl -s -u "$client_id:$client_secret" http://localhost:3000/token -d grant_type=client_credentials -d scope=users:read)
token=$(echo "$out" | json access_token) || fail "no access token: $out"
out=$(curl -s http://localhost:3000/v1/users/"$user_id" -H "Authorization: Bearer $token")
[ "$(echo "$out" | json username)" = alice ] || fail "/v1/users/$user_id answered: $out"

step "Ctrl-C"
ctrl_c
step "the CLI after Ctrl-C"
out=$(plain npx gatehouse users list 2>"$work/cli.err") || fail "users list after Ctrl-C: $out $(cat "$work/cli.err")"
echo "$out" | grep -q '"alice"' || fail "users list after Ctrl-C does not show alice: $out"

step "a second npm start on the same data, from another working directory (npm --prefix)"
checkout=$PWD
cd "$HOME"
start --prefix "$checkout"
cd "$checkout"
step "ready after ${ready_after} s (second start)"
[ "$ready_after" -lt 10 ] || fail "the second start took ${ready_after} s (at most 10 s)"
out=$(curl -s -u "$client_id:$client_secret" http://localhost:3000/token -d grant_type=client_credentials -d scope=users:read)
echo "$out" | json access_token >/dev/null || fail "no token after the restart: $out"
ctrl_c

# The machine's own Node.js, when it is older than we support (Debian ships 20): refused in one line.
if [ -x /usr/bin/node ] && ! /usr/bin/node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)'; then
  out=$(env -i PATH="/usr/bin:/bin" HOME="$HOME" /usr/bin/node dist/src/main.js 2>&1) && fail "Node.js $(/usr/bin/node --version) started the server"
  [ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q 'Node.js 22.15 or newer is required' || fail "Node.js $(/usr/bin/node --version) was not refused in one line: $out"
  step "Node.js $(/usr/bin/node --version) is refused in one line"
fi
step "passed"
