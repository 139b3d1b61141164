#!/usr/bin/env bash
# make run: start chartd -target=all on the embedded backends, creating a
# local pro account (and printing its key) on first start. Extra arguments
# (make run ARGS="...") go to chartd.
set -euo pipefail
ADDR=${ADDR:-127.0.0.1:8080}
DATA=${DATA:-./data}
mkdir -p "$DATA"
chmod 700 "$DATA"
keyfile="$DATA/local-api-key"
if [ ! -s "$keyfile" ]; then
  out=$(bin/chartctl -data-dir "$DATA" account create -plan pro -key-name local)
  key=$(printf '%s' "$out" | sed -n 's/.*"api_key": *"\([^"]*\)".*/\1/p')
  ( umask 077; printf '%s\n' "$key" > "$keyfile" )
fi
key=$(cat "$keyfile")
cat <<MSG

  chartd is starting on http://$ADDR
  Your local pro API key: $key   (kept in $keyfile)

  Try:
    curl -s -H "Authorization: Bearer $key" http://$ADDR/api/v1/account

MSG
exec bin/chartd -target=all -data-dir "$DATA" -addr "$ADDR" -public-url "http://$ADDR" "$@"
