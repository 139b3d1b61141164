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
email=local@chartd.localhost
if [ ! -s "$keyfile" ]; then
  out=$(bin/chartctl -data-dir "$DATA" account create -plan pro -key-name local -email "$email")
  key=$(printf '%s' "$out" | sed -n 's/.*"api_key": *"\([^"]*\)".*/\1/p')
  ( umask 077; printf '%s\n' "$key" > "$keyfile" )
fi
key=$(cat "$keyfile")
# A one-time sign-in link for the site, valid 15 minutes, on every start.
link=$(bin/chartctl -data-dir "$DATA" signin link -email "$email" -public-url "http://$ADDR" 2>/dev/null |
  sed -n 's/.*"url": *"\([^"]*\)".*/\1/p') || true
if [ -z "$link" ]; then
  link="(this data dir's account has no site user: delete $keyfile for a new account)"
fi
cat <<MSG

  chartd is starting on http://$ADDR
  Open http://$ADDR and sign in with this one-time link (valid 15 minutes):
    $link
  Your local pro API key: $key   (kept in $keyfile)
  Sign-up mails are not sent here (no -gateway.mail.smtp-url): each one,
  with its confirmation link, is printed below as an "email not sent" log line.

  Try:
    curl -s -H "Authorization: Bearer $key" http://$ADDR/api/v1/account

MSG
exec bin/chartd -target=all -data-dir "$DATA" -addr "$ADDR" -public-url "http://$ADDR" "$@"
