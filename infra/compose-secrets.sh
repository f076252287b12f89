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
# SeaweedFS's security settings (mounted at /etc/seaweedfs/security.toml): JWT
# keys for writes to its volume server and for reads and writes of its filer,
# no volume or filer UI, and mutual TLS on every gRPC port with a CA made here
# (one certificate for all its servers and clients: SeaweedFS checks no host
# name). The CA's key is not kept: to renew (after 10 years), remove
# s3_security.toml and s3_grpc* and run this again. Needs openssl.
if [ ! -s "$dir/s3_security.toml" ]; then
  command -v openssl >/dev/null || { echo "compose-secrets.sh: openssl is needed for the object store's certificates" >&2; exit 1; }
  ca_key="$(mktemp)"
  csr="$(mktemp)"
  ext="$(mktemp)"
  trap 'rm -f "$ca_key" "$csr" "$ext"' EXIT
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 3650 -subj "/CN=svc SeaweedFS gRPC CA" \
    -keyout "$ca_key" -out "$dir/s3_grpc_ca.crt" 2>/dev/null
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -subj "/CN=svc-seaweedfs" -keyout "$dir/s3_grpc.key" -out "$csr" 2>/dev/null
  printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:s3,DNS:localhost,IP:127.0.0.1\n' > "$ext"
  openssl x509 -req -in "$csr" -CA "$dir/s3_grpc_ca.crt" -CAkey "$ca_key" -CAcreateserial -sha256 -days 3650 -extfile "$ext" -out "$dir/s3_grpc.crt" 2>/dev/null
  rm -f "$dir/s3_grpc_ca.srl"
  chmod 644 "$dir/s3_grpc.key" # as the other files (see above); openssl writes keys 0600
  cat > "$dir/s3_security.toml" <<EOF
# SeaweedFS security settings of infra/compose.yaml (written by compose-secrets.sh).
[jwt.signing]
key = "$(rand 48 40)"
expires_after_seconds = 10
[jwt.filer_signing]
key = "$(rand 48 40)"
expires_after_seconds = 10
[jwt.filer_signing.read]
key = "$(rand 48 40)"
expires_after_seconds = 10
[access]
ui = false
[filer.expose_directory_metadata]
enabled = false
[guard]
white_list = "127.0.0.1"
[grpc]
ca = "/run/secrets/s3_grpc_ca"
[grpc.master]
cert = "/run/secrets/s3_grpc_cert"
key = "/run/secrets/s3_grpc_key"
[grpc.volume]
cert = "/run/secrets/s3_grpc_cert"
key = "/run/secrets/s3_grpc_key"
[grpc.filer]
cert = "/run/secrets/s3_grpc_cert"
key = "/run/secrets/s3_grpc_key"
[grpc.s3]
cert = "/run/secrets/s3_grpc_cert"
key = "/run/secrets/s3_grpc_key"
[grpc.client]
cert = "/run/secrets/s3_grpc_cert"
key = "/run/secrets/s3_grpc_key"
EOF
fi
echo "secrets in $dir; the first admin's password is in $dir/admin_password"
