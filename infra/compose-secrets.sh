#!/bin/sh
# Writes the secret files of infra/compose.yaml, by default into infra/secrets/
# (once: an existing file is kept, so running it again changes nothing). Keep
# master_keys: it decrypts the secrets stored in svc. admin_password is the
# password of the first admin (SVC_ADMIN_EMAIL, default admin@localhost),
# created when the database holds no user yet.
#   sh infra/compose-secrets.sh [DIR]
set -eu
dir="${1:-$(dirname "$0")/secrets}"
mkdir -p "$dir"
# The directory is root's alone; the files are readable by all, since Compose
# (without Swarm) bind-mounts them as they are and the apps run as `node`.
chmod 700 "$dir"
umask 022
rand() { head -c "$1" /dev/urandom | base64 | tr -d '\n/+=' | cut -c "1-$2"; }
write() { [ -s "$dir/$1" ] || printf '%s\n' "$2" > "$dir/$1"; }
write postgres_password "$(rand 48 40)"
write master_keys "k1:$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
write admin_password "$(rand 24 20)"
s3_key="svc$(rand 24 17)"
s3_secret="$(rand 48 40)"
if [ ! -s "$dir/s3_config.json" ]; then
  printf '{"identities":[{"name":"svc","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Admin","Read","Write","List","Tagging"]}]}\n' "$s3_key" "$s3_secret" > "$dir/s3_config.json"
  printf 's3://%s:%s@s3:9000/svc?ssl=false\n' "$s3_key" "$s3_secret" > "$dir/storage_url"
fi
write database_url "postgres://svc:$(head -n 1 "$dir/postgres_password")@postgres:5432/svc"
echo "secrets in $dir; the first admin's password is in $dir/admin_password"
