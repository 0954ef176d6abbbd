#!/usr/bin/env bash
# Write .env (gitignored) for docker compose: the credential services present to each other
# (WORKGYM_INTERNAL_SECRET), the secret the gym and the proxy sign episode tokens with
# (WORKGYM_TOKEN_SECRET), Redis's password (WORKGYM_REDIS_PASSWORD) and the operator's API
# key (WORKGYM_API_KEY). The API key is this
# machine's own (~/.config/workgym/api-key, created here if absent), so the SDK and CLI on the
# host reach the stack without setup. And COMPOSE_PROJECT_NAME, this checkout's own
# (workgym-<directory>-<hash of its absolute path>), which `docker compose` reads from .env:
# two checkouts on one engine run two stacks, and `make down` in one leaves the other's alone
# (COMPOSE_PROJECT_NAME set in the environment wins). Never overwrites a value already in .env.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${WORKGYM_CONFIG_DIR:-${XDG_CONFIG_HOME:-$HOME/.config}/workgym}"
token() { python3 -c 'import secrets; print(secrets.token_urlsafe(32))'; }
has() { [ -f .env ] && grep -q "^$1=" .env; }
umask 077
if [ ! -s "$config/api-key" ]; then
  mkdir -p "$config"
  # Written aside and linked into place, as workgym_core.credentials.load_or_create does: a
  # server that made the key first (between the test above and this write) keeps its own,
  # which a plain `>` would have overwritten under it (every later call to it a 401).
  aside=$(mktemp "$config/.api-key.XXXXXX")
  echo "wgk_$(token)" > "$aside"
  if ln "$aside" "$config/api-key" 2>/dev/null; then
    echo "compose-env: wrote this machine's API key to $config/api-key" >&2
  fi
  rm -f "$aside"
fi
wrote=""
for secret in WORKGYM_INTERNAL_SECRET WORKGYM_TOKEN_SECRET WORKGYM_REDIS_PASSWORD; do
  if ! has "$secret"; then
    echo "$secret=$(token)" >> .env
    wrote="$wrote $secret"
  fi
done
if ! has COMPOSE_PROJECT_NAME; then
  here=$(pwd -P)
  directory=$(basename "$here" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9_\n-' '-')
  echo "COMPOSE_PROJECT_NAME=workgym-$directory-$(printf %s "$here" | sha256sum | cut -c1-8)" >> .env
  wrote="$wrote COMPOSE_PROJECT_NAME"
fi
if ! has WORKGYM_API_KEY; then
  echo "WORKGYM_API_KEY=$(cat "$config/api-key")" >> .env
  wrote="$wrote WORKGYM_API_KEY"
fi
[ -z "$wrote" ] || echo "compose-env: wrote$wrote to .env" >&2
