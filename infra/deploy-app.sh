#!/bin/sh
# The production files of one app, in a built workspace (scripts/bootstrap.mjs):
# the app, the workspace packages it uses and their production dependencies
# (`pnpm deploy --prod`), less its sources, plus the image's two scripts
# and, for the api-gateway, the built web UI.
# Run by infra/Dockerfile, and by the image tests on the test machine.
#   sh infra/deploy-app.sh APP OUT_DIR      (APP: a directory of apps/)
set -eu
app="$1"
out="$2"
test -f "apps/${app}/package.json" || { echo "no app apps/${app}" >&2; exit 2; }
rm -rf "${out}"
CI=true .tools/node_modules/.bin/pnpm --filter "./apps/${app}" deploy --prod "${out}"
rm -rf "${out}/src" "${out}/test" "${out}/tsconfig.json"
cp infra/healthcheck.mjs infra/migrate.mjs "${out}/"
# The gateway serves the web UI from /app/web (apps/api-gateway/src/ui.ts).
if [ "${app}" = api-gateway ]; then
  test -f apps/web/dist/index.html || { echo "the web UI is not built (apps/web/dist)" >&2; exit 2; }
  cp -R apps/web/dist "${out}/web"
fi
