#!/bin/sh
# Runs one svc app: api-gateway, scheduler, dispatcher, maintenance, or cli ARGS.
set -e
app="${1:-api-gateway}"
shift || true
exec node "/app/apps/${app}/dist/main.js" "$@"
