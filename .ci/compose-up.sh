#!/usr/bin/env bash
# `make images` and `make up`, quiet: one line per image and a status table; VERBOSE=1 shows
# docker's own output too. Either way it is kept in .workgym/compose-<step>.log; on a failure,
# its tail.
#   compose-up.sh images   build the service images
#   compose-up.sh up       start the stack and wait for it to be healthy. A service running more
#                          than one instance (`docker compose up --scale helpdesk=3`) keeps
#                          them: plain `docker compose up` would scale it back to the file's
#                          one. SCALE='helpdesk=3 checkout=2' sets instances (wins over both).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .workgym && log=".workgym/compose-$1.log"  # gitignored, outside the build context

quietly() {  # run "$@" with its output in $log (on the terminal too with VERBOSE=1)
  local status=0
  if [ -n "${VERBOSE:-}" ]; then
    "$@" 2>&1 | tee "$log" || status=$?
  else
    "$@" >"$log" 2>&1 || status=$?
  fi
  # Some Compose builds (the local engine's) exit 0 when a build step fails: read the log too.
  if [ "$status" -ne 0 ] || grep -q '^failed to solve' "$log"; then
    if [ -n "${VERBOSE:-}" ]; then
      echo "$1 $2 $3 failed: its output above, also in $log" >&2
    else
      tail -n 30 "$log" >&2
      echo "$1 $2 $3 failed: its last 30 lines above, all in $log (VERBOSE=1 shows it as it runs)" >&2
    fi
    exit 1
  fi
}

built_images() {  # the images `docker compose build` makes (named after the project)
  docker compose config --images | sort | grep -vxF -f <(docker compose config --format json |
    python3 -c 'import json, sys
print("\n".join(s["image"] for s in json.load(sys.stdin)["services"].values() if "build" not in s))')
}

image_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }

case "$1" in
  images)
    images=$(built_images)
    declare -A before
    for image in $images; do before[$image]=$(image_id "$image"); done
    quietly docker compose build
    width=$(wc -L <<<"$images")
    for image in $images; do
      id=$(image_id "$image")
      if [ "$id" = "${before[$image]}" ]; then state="up to date"; else state="built"; fi
      size=$(docker image inspect -f '{{.Size}}' "$image")
      printf 'images: %-*s  %-10s  %s  %4d MB\n' "$width" "$image" "$state" "${id:7:12}" $((size / 1000000))
    done
    ;;
  up)
    scale=()
    while read -r count service; do  # the instances each service runs now, where more than one
      [ "$count" -gt 1 ] && scale+=(--scale "$service=$count")
    done < <(docker compose ps --format '{{.Service}}' | sort | uniq -c)
    for wanted in ${SCALE:-}; do scale+=(--scale "$wanted"); done
    [ ${#scale[@]} -eq 0 ] || echo "up: ${scale[*]}"
    quietly docker compose up -d --wait "${scale[@]}"
    docker compose ps --format 'table {{.Name}}\t{{.Status}}\t{{.Ports}}'
    ;;
  *)
    echo "usage: compose-up.sh images|up" >&2
    exit 2
    ;;
esac
