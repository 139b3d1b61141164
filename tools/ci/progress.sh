# shellcheck shell=bash
# progress WHAT MINUTES COMMAND...: runs a long one-time build, saying
# first how long it is expected to take and then, every PROGRESS_EVERY
# seconds (60), how long it has taken so far, so a first `make test` does
# not look hung. It answers the command's exit status. Sourced by deps.sh.
progress() {
  local what=$1 expect=$2
  shift 2
  local every=${PROGRESS_EVERY:-60}
  echo "building $what: expect ~$expect min on 2 cores (once; cached in ~/.cache/chartd/bin)"
  "$@" &
  local pid=$! start=$SECONDS next=$((SECONDS + every))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$next" ]; then
      local took=$((SECONDS - start))
      echo "  $what: $((took / 60)) min $((took % 60)) s of ~$expect min"
      next=$((next + every))
    fi
    sleep 1
  done
  local status=0
  wait "$pid" || status=$?
  local took=$((SECONDS - start))
  if [ "$status" -eq 0 ]; then
    echo "  $what built in $((took / 60)) min $((took % 60)) s"
  else
    echo "  $what failed after $((took / 60)) min $((took % 60)) s (exit $status)"
  fi
  return "$status"
}
